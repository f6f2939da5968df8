// One process's usage as /proc shows it, summed over a cgroup's processes where the cgroup files
// do not say it (cgroup v1 and hybrid nodes, where podlimits manages only the pids hierarchy and
// so has no cpu or memory cgroup of its own to read):
//
//   /proc/PID/stat     utime + stime (fields 14 and 15, in clock ticks)   cpu time
//   /proc/PID/status   VmRSS (kB), Threads                               memory, threads
//   /proc/PID/fd/      one entry per open descriptor                     open files
//   /proc/PID/limits   the soft limits, cAdvisor's way (below)
//
// The proc root is a parameter so that tests read a directory of their own.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "base/error.h"

namespace podlimits::kubelet {

struct ProcessUsage {
  std::int64_t cpu_ns = 0;      // utime + stime
  std::int64_t rss_bytes = 0;   // VmRSS; 0 for a kernel thread or a zombie
  std::int64_t threads = 0;     // Threads
  std::int64_t open_files = 0;  // entries of fd/; 0 when it cannot be listed
};

// utime + stime in clock ticks from the text of /proc/PID/stat (the command may hold spaces and
// parentheses: the fields are counted after the last ')').
Result<std::int64_t> ParseStatCpuTicks(std::string_view stat);

// The usage of `pid`; an error when the process is gone (it exited between the read of
// cgroup.procs and now, which the caller skips).
Result<ProcessUsage> ReadProcessUsage(const std::filesystem::path& proc_root, pid_t pid);

// The soft limits of /proc/PID/limits by cAdvisor's names ("Max open files" is
// "max_open_files"), "unlimited" as -1. Only the limits cAdvisor reports (max_open_files) and
// the one this project limits besides (max_processes) are kept.
std::map<std::string, std::int64_t> ParseSoftLimits(std::string_view limits);
Result<std::map<std::string, std::int64_t>> ReadSoftLimits(const std::filesystem::path& proc_root,
                                                           pid_t pid);

}  // namespace podlimits::kubelet
