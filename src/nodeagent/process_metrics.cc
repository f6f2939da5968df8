#include "nodeagent/process_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/fs.h"
#include "base/prometheus_text.h"

namespace podlimits::nodeagent {
namespace {

// The fields of /proc/self/stat after "(comm)": index 0 is field 3 (state). Unreadable: none, and
// the metrics are left out.
std::vector<std::string> StatFields() {
  const std::string line = ReadWholeFile("/proc/self/stat").value_or("");
  const auto close = line.rfind(')');
  std::vector<std::string> fields;
  if (close == std::string::npos) return fields;
  std::istringstream rest(line.substr(close + 1));
  for (std::string f; rest >> f;) fields.push_back(f);
  return fields;
}

// The "btime" line of /proc/stat: when the machine booted, in seconds since the epoch (0 when
// unreadable).
double BootTime() {
  const std::string stat = ReadWholeFile("/proc/stat").value_or("");
  std::istringstream lines(stat);
  for (std::string line; std::getline(lines, line);) {
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
  PrometheusText out;
  auto figure = [&out](MetricName name, std::string_view help, MetricType type, double value) {
    out.Family(name, help, type);
    out.Sample(value);
  };
  figure("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
         MetricType::kCounter, cpu);
  figure("process_max_fds", "Maximum number of open file descriptors.", MetricType::kGauge,
         static_cast<double>(nofile.rlim_cur));
  figure("process_open_fds", "Number of open file descriptors.", MetricType::kGauge, OpenFds());
  figure("process_resident_memory_bytes", "Resident memory size in bytes.", MetricType::kGauge,
         rss);
  figure("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
         MetricType::kGauge, start);
  figure("process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::kGauge,
         vsize);
  return std::move(out).text();
}

}  // namespace podlimits::nodeagent
