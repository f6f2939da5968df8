#include "nodeagent/process_metrics.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "kubelet/metrics/metrics.h"

namespace podlimits::nodeagent {
namespace {

std::string Gauge(std::string_view name, std::string_view help, std::string_view type,
                  double value) {
  return fmt::format("# HELP {} {}\n# TYPE {} {}\n{} {}\n", name, help, name, type, name,
                     kubelet::PrometheusValue(value));
}

// The fields of /proc/self/stat after "(comm)": index 0 is field 3 (state).
std::vector<std::string> StatFields() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  std::getline(in, line);
  const auto close = line.rfind(')');
  std::vector<std::string> fields;
  if (close == std::string::npos) return fields;
  std::istringstream rest(line.substr(close + 1));
  for (std::string f; rest >> f;) fields.push_back(f);
  return fields;
}

double BootTime() {
  std::ifstream in("/proc/stat");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("btime ")) return std::stod(line.substr(6));
  }
  return 0;
}

double OpenFds() {
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return 0;
  double n = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(d);
  return n - 1;  // the directory stream's own descriptor
}

}  // namespace

std::string ProcessMetricsText() {
  const auto f = StatFields();
  if (f.size() < 22) return "";
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  // Fields 14/15 (utime, stime), 22 (starttime), 23 (vsize), 24 (rss): index = field − 3.
  const double cpu = (std::stod(f[11]) + std::stod(f[12])) / ticks;
  const double start = BootTime() + std::stod(f[19]) / ticks;
  const double vsize = std::stod(f[20]);
  const double rss = std::stod(f[21]) * page;
  rlimit nofile{};
  getrlimit(RLIMIT_NOFILE, &nofile);
  std::string out;
  out += Gauge("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
               "counter", cpu);
  out += Gauge("process_max_fds", "Maximum number of open file descriptors.", "gauge",
               static_cast<double>(nofile.rlim_cur));
  out += Gauge("process_open_fds", "Number of open file descriptors.", "gauge", OpenFds());
  out += Gauge("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge", rss);
  out += Gauge("process_start_time_seconds",
               "Start time of the process since unix epoch in seconds.", "gauge", start);
  out += Gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge", vsize);
  return out;
}

}  // namespace podlimits::nodeagent
