// What one cgroup (a container's, or a pod's) uses now, read the way this node can:
//
//   cgroup v2 (the unified tree is managed)        cpu.stat usage_usec; memory.current minus
//                                                  memory.stat inactive_file (the working set,
//                                                  as cAdvisor reports it) where the memory
//                                                  controller is enabled down to the cgroup
//   v1 / hybrid (only the pids hierarchy managed)  the sum over the cgroup's processes of
//                                                  /proc utime+stime and VmRSS (process_stats.h)
//
// and on either: the processes (cgroup.procs of the cgroup and every cgroup below it), their
// threads and open descriptors, pids.current and the kernel's pids.peak (where the kernel has
// the file: 6.1 and later on v2; this project's 6.18 machines have it on the v1 pids hierarchy
// too), and the soft limits of the cgroup's first process (cAdvisor reads
// them from the container's root process).
//
// The /proc sums are weaker than the cgroup files: the cpu time a process used in the window it
// exited in is not counted, and pages shared between processes count once per process.
// docs/serve.md says so.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "cgroups/tree.h"

namespace podlimits::kubelet {

struct CgroupUsage {
  std::chrono::system_clock::time_point time;
  std::int64_t cpu_ns = 0;        // cumulative cpu time
  std::int64_t memory_bytes = 0;  // working set
  std::int64_t processes = 0;
  std::int64_t threads = 0;
  std::int64_t open_files = 0;              // summed over the processes (cAdvisor's count)
  std::int64_t process_open_files_max = 0;  // of the one process holding the most: what
                                            // RLIMIT_NOFILE, a per-process limit, has to allow
  std::optional<std::int64_t> pids_current;  // the pids controller's, where the tree has it
  std::optional<std::int64_t> pids_peak;     // the kernel's pids.peak, where it exists
  std::map<std::string, std::int64_t> soft_limits;  // of the first process
  bool from_proc = false;  // cpu and memory summed over /proc rather than read from the cgroup
  // With from_proc: each process's own cpu time, so that a rate counts only what the processes
  // did between two samples (a process that exited takes its time with it; the sum alone would
  // then go down).
  std::map<pid_t, std::int64_t> process_cpu_ns;
};

struct CgroupUsageSource {
  const cgroups::CgroupTree* tree = nullptr;  // the managed hierarchy holding the cgroup
  bool unified = false;                       // it is the cgroup v2 tree
  std::filesystem::path proc_root = "/proc";
};

// The usage of `cgroup` (relative to the tree's root) at `now`; an error when the cgroup is not
// there (not made yet, or gone).
Result<CgroupUsage> ReadCgroupUsage(const CgroupUsageSource& source,
                                    const std::filesystem::path& cgroup,
                                    std::chrono::system_clock::time_point now);

// "usage_usec N" of cpu.stat, in nanoseconds.
std::optional<std::int64_t> ParseCpuStatUsage(std::string_view cpu_stat);
// memory.current minus inactive_file of memory.stat, never below 0.
std::int64_t WorkingSet(std::int64_t memory_current, std::string_view memory_stat);

}  // namespace podlimits::kubelet
