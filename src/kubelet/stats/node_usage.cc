#include "kubelet/stats/node_usage.h"

#include <unistd.h>

#include <charconv>
#include <optional>
#include <system_error>
#include <vector>

#include "base/fs.h"

namespace podlimits::kubelet {
namespace {

std::optional<std::int64_t> MeminfoKb(std::string_view text, std::string_view key) {
  std::size_t pos = text.find(std::string(key) + ":");
  if (pos == std::string_view::npos || (pos > 0 && text[pos - 1] != '\n')) return std::nullopt;
  pos += key.size() + 1;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  std::int64_t n = 0;
  auto [p, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), n);
  if (ec != std::errc()) return std::nullopt;
  return n;
}

}  // namespace

Result<std::int64_t> ParseProcStatBusy(std::string_view stat) {
  if (!stat.starts_with("cpu ")) return Failure("parse /proc/stat: no cpu line first");
  std::string_view line = stat.substr(4, stat.find('\n') - 4);
  std::vector<std::int64_t> values;
  while (!line.empty()) {
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty()) break;
    std::int64_t n = 0;
    auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), n);
    if (ec != std::errc()) return Failure("parse /proc/stat: a cpu field is not a number");
    values.push_back(n);
    line.remove_prefix(p - line.data());
  }
  if (values.size() < 8) return Failure("parse /proc/stat: fewer than 8 cpu fields");
  // user nice system idle iowait irq softirq steal
  const std::int64_t busy = values[0] + values[1] + values[2] + values[5] + values[6] + values[7];
  static const std::int64_t ns_per_tick = [] {
    const long ticks = sysconf(_SC_CLK_TCK);
    return ticks > 0 ? 1'000'000'000 / ticks : 10'000'000;
  }();
  return busy * ns_per_tick;
}

Result<std::int64_t> ParseMeminfoUsed(std::string_view meminfo) {
  auto total = MeminfoKb(meminfo, "MemTotal");
  auto available = MeminfoKb(meminfo, "MemAvailable");
  if (!total || !available) return Failure("parse /proc/meminfo: no MemTotal or MemAvailable");
  return (*total - *available) * 1024;
}

Result<NodeUsage> ReadNodeUsage(const std::filesystem::path& proc_root,
                                std::chrono::system_clock::time_point now) {
  auto stat = ReadWholeFile(proc_root / "stat");
  if (!stat) return std::unexpected(stat.error());
  auto meminfo = ReadWholeFile(proc_root / "meminfo");
  if (!meminfo) return std::unexpected(meminfo.error());
  auto cpu = ParseProcStatBusy(*stat);
  if (!cpu) return std::unexpected(cpu.error());
  auto memory = ParseMeminfoUsed(*meminfo);
  if (!memory) return std::unexpected(memory.error());
  return NodeUsage{now, *cpu, *memory};
}

}  // namespace podlimits::kubelet
