// The node's own usage, as metrics-server reports it for NodeMetrics (the root cgroup's cpu and
// working set, which cAdvisor reads; here from /proc, which every node has): cpu time is
// /proc/stat's first line without idle and iowait, memory is MemTotal - MemAvailable of
// /proc/meminfo.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "base/error.h"

namespace podlimits::kubelet {

struct NodeUsage {
  std::chrono::system_clock::time_point time;
  std::int64_t cpu_ns = 0;        // cumulative, all cpus
  std::int64_t memory_bytes = 0;  // in use
};

// Busy cpu time of /proc/stat's "cpu" line (user nice system irq softirq steal), in nanoseconds.
Result<std::int64_t> ParseProcStatBusy(std::string_view stat);
// MemTotal - MemAvailable of /proc/meminfo, in bytes.
Result<std::int64_t> ParseMeminfoUsed(std::string_view meminfo);

Result<NodeUsage> ReadNodeUsage(const std::filesystem::path& proc_root,
                                std::chrono::system_clock::time_point now);

}  // namespace podlimits::kubelet
