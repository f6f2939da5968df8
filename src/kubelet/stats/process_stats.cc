#include "kubelet/stats/process_stats.h"

#include <unistd.h>

#include <cctype>
#include <charconv>
#include <optional>
#include <system_error>
#include <vector>

#include "base/fs.h"

namespace podlimits::kubelet {
namespace {

// Nanoseconds per clock tick (USER_HZ, 100 on Linux).
std::int64_t NanosecondsPerTick() {
  static const std::int64_t ns = [] {
    const long ticks = sysconf(_SC_CLK_TCK);
    return ticks > 0 ? 1'000'000'000 / ticks : 10'000'000;
  }();
  return ns;
}

bool ParseInt(std::string_view text, std::int64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// The value of "Key:" in /proc/PID/status, its first word.
std::optional<std::int64_t> StatusField(std::string_view status, std::string_view key) {
  std::size_t pos = 0;
  while (pos < status.size()) {
    std::size_t end = status.find('\n', pos);
    if (end == std::string_view::npos) end = status.size();
    std::string_view line = status.substr(pos, end - pos);
    pos = end + 1;
    if (!line.starts_with(key) || line.size() <= key.size() || line[key.size()] != ':') continue;
    std::string_view value = Trim(line.substr(key.size() + 1));
    value = value.substr(0, value.find(' '));
    std::int64_t n = 0;
    if (ParseInt(value, n)) return n;
  }
  return std::nullopt;
}

std::int64_t CountEntries(const std::filesystem::path& dir) {
  std::error_code ec;
  std::int64_t n = 0;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

}  // namespace

Result<std::int64_t> ParseStatCpuTicks(std::string_view stat) {
  const std::size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return Failure("parse /proc stat: no ')' after the command");
  // After ") ": state is field 3; utime and stime are fields 14 and 15.
  std::vector<std::string_view> fields;
  std::string_view rest = stat.substr(close + 1);
  while (!rest.empty() && fields.size() < 13) {
    rest = Trim(rest);
    const std::size_t space = rest.find(' ');
    fields.push_back(rest.substr(0, space));
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space);
  }
  std::int64_t utime = 0, stime = 0;
  if (fields.size() < 13 || !ParseInt(fields[11], utime) || !ParseInt(fields[12], stime)) {
    return Failure("parse /proc stat: no utime and stime");
  }
  return utime + stime;
}

Result<ProcessUsage> ReadProcessUsage(const std::filesystem::path& proc_root, pid_t pid) {
  const std::filesystem::path dir = proc_root / std::to_string(pid);
  auto stat = ReadWholeFile(dir / "stat");
  if (!stat) return std::unexpected(stat.error());
  auto ticks = ParseStatCpuTicks(*stat);
  if (!ticks) return std::unexpected(ticks.error().Wrap(std::to_string(pid)));
  auto status = ReadWholeFile(dir / "status");
  if (!status) return std::unexpected(status.error());
  ProcessUsage usage;
  usage.cpu_ns = *ticks * NanosecondsPerTick();
  usage.rss_bytes = StatusField(*status, "VmRSS").value_or(0) * 1024;
  usage.threads = StatusField(*status, "Threads").value_or(1);
  usage.open_files = CountEntries(dir / "fd");
  return usage;
}

std::map<std::string, std::int64_t> ParseSoftLimits(std::string_view limits) {
  std::map<std::string, std::int64_t> out;
  std::size_t pos = 0;
  while (pos < limits.size()) {
    std::size_t end = limits.find('\n', pos);
    if (end == std::string_view::npos) end = limits.size();
    std::string_view line = limits.substr(pos, end - pos);
    pos = end + 1;
    // "Max open files            1024                 4096                 files": the columns
    // are separated by two spaces or more, as cAdvisor splits them.
    const std::size_t gap = line.find("  ");
    if (!line.starts_with("Max") || gap == std::string_view::npos) continue;
    std::string name(Trim(line.substr(0, gap)));
    for (char& c : name) c = c == ' ' ? '_' : static_cast<char>(std::tolower(c));
    if (name != "max_open_files" && name != "max_processes") continue;
    std::string_view soft = Trim(line.substr(gap));
    soft = soft.substr(0, soft.find(' '));
    std::int64_t value = 0;
    if (soft == "unlimited") {
      out[name] = -1;
    } else if (ParseInt(soft, value)) {
      out[name] = value;
    }
  }
  return out;
}

Result<std::map<std::string, std::int64_t>> ReadSoftLimits(const std::filesystem::path& proc_root,
                                                           pid_t pid) {
  auto text = ReadWholeFile(proc_root / std::to_string(pid) / "limits");
  if (!text) return std::unexpected(text.error());
  return ParseSoftLimits(*text);
}

}  // namespace podlimits::kubelet
