#include "kubelet/stats/cgroup_usage.h"

#include <algorithm>
#include <charconv>
#include <system_error>
#include <vector>

#include "kubelet/stats/process_stats.h"

namespace podlimits::kubelet {
namespace {

std::optional<std::int64_t> KeyedValue(std::string_view text, std::string_view key) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.starts_with(key) || line.size() <= key.size() || line[key.size()] != ' ') continue;
    std::string_view value = line.substr(key.size() + 1);
    std::int64_t n = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec == std::errc()) return n;
  }
  return std::nullopt;
}

std::optional<std::int64_t> ReadNumber(const cgroups::CgroupTree& tree,
                                       const std::filesystem::path& cgroup, std::string_view file) {
  auto text = tree.Read(cgroup, file);
  if (!text) return std::nullopt;
  std::int64_t n = 0;
  auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
  if (ec != std::errc()) return std::nullopt;
  return n;
}

// The processes of `cgroup` and of every cgroup below it.
Result<std::vector<pid_t>> SubtreeProcs(const cgroups::CgroupTree& tree,
                                        const std::filesystem::path& cgroup) {
  auto procs = tree.Procs(cgroup);
  if (!procs) return procs;
  auto absolute = tree.Path(cgroup);
  if (!absolute) return std::unexpected(absolute.error());
  std::error_code ec;
  for (std::filesystem::directory_iterator it(*absolute, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    auto below = SubtreeProcs(tree, cgroup / it->path().filename());
    if (below) procs->insert(procs->end(), below->begin(), below->end());
  }
  return procs;
}

}  // namespace

std::optional<std::int64_t> ParseCpuStatUsage(std::string_view cpu_stat) {
  auto usec = KeyedValue(cpu_stat, "usage_usec");
  if (!usec) return std::nullopt;
  return *usec * 1000;
}

std::int64_t WorkingSet(std::int64_t memory_current, std::string_view memory_stat) {
  const std::int64_t inactive = KeyedValue(memory_stat, "inactive_file").value_or(0);
  return std::max<std::int64_t>(0, memory_current - inactive);
}

Result<CgroupUsage> ReadCgroupUsage(const CgroupUsageSource& source,
                                    const std::filesystem::path& cgroup,
                                    std::chrono::system_clock::time_point now) {
  const cgroups::CgroupTree& tree = *source.tree;
  auto procs = SubtreeProcs(tree, cgroup);
  if (!procs) return std::unexpected(procs.error());
  CgroupUsage usage;
  usage.time = now;
  usage.pids_current = ReadNumber(tree, cgroup, "pids.current");
  usage.pids_peak = ReadNumber(tree, cgroup, "pids.peak");
  std::optional<std::int64_t> cpu, memory;
  if (source.unified) {
    if (auto stat = tree.Read(cgroup, "cpu.stat")) cpu = ParseCpuStatUsage(*stat);
    if (auto current = ReadNumber(tree, cgroup, "memory.current")) {
      auto stat = tree.Read(cgroup, "memory.stat");
      memory = WorkingSet(*current, stat ? *stat : std::string());
    }
  }
  std::int64_t proc_cpu = 0, proc_rss = 0;
  std::sort(procs->begin(), procs->end());
  for (pid_t pid : *procs) {
    auto p = ReadProcessUsage(source.proc_root, pid);
    if (!p) continue;  // exited meanwhile
    ++usage.processes;
    usage.threads += p->threads;
    usage.open_files += p->open_files;
    usage.process_open_files_max = std::max(usage.process_open_files_max, p->open_files);
    proc_cpu += p->cpu_ns;
    usage.process_cpu_ns[pid] = p->cpu_ns;
    proc_rss += p->rss_bytes;
    if (usage.processes == 1) {
      if (auto limits = ReadSoftLimits(source.proc_root, pid)) usage.soft_limits = *limits;
    }
  }
  usage.from_proc = !cpu || !memory;
  if (cpu) usage.process_cpu_ns.clear();
  usage.cpu_ns = cpu.value_or(proc_cpu);
  usage.memory_bytes = memory.value_or(proc_rss);
  return usage;
}

}  // namespace podlimits::kubelet
