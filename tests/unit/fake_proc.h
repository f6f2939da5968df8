// A fake /proc entry in a test's scratch directory, for what reads processes' usage
// (kubelet/stats): stat (utime, stime), status (VmRSS, Threads), limits (nofile) and fd/.
#pragma once

#include <filesystem>
#include <string>

#include "temp_dir.h"

namespace podlimits::testing {

struct FakeProcessUsage {
  int utime = 0, stime = 0;  // clock ticks
  int rss_kb = 0;
  int threads = 1;
  int fds = 0;
  int nofile_soft = 1024;
};

// DIR/proc/PID/... for a process named "app".
inline void WriteFakeProcess(const TempDir& dir, int pid, const FakeProcessUsage& u) {
  const std::string p = "proc/" + std::to_string(pid);
  dir.Write(p + "/stat", std::to_string(pid) + " (app) S 1 1 1 0 -1 0 0 0 0 0 " +
                             std::to_string(u.utime) + " " + std::to_string(u.stime) +
                             " 0 0 20 0 1 0 1 1 1\n");
  dir.Write(p + "/status", "Name:\tapp\nVmRSS:\t  " + std::to_string(u.rss_kb) +
                               " kB\nThreads:\t" + std::to_string(u.threads) + "\n");
  dir.Write(p + "/limits", "Limit                     Soft Limit           Hard Limit           Units\n"
                           "Max open files            " + std::to_string(u.nofile_soft) +
                               "                 4096                 files\n");
  std::filesystem::remove_all(dir / (p + "/fd"));  // a process written again has these fds only
  std::filesystem::create_directories(dir / (p + "/fd"));
  for (int fd = 0; fd < u.fds; ++fd) dir.Write(p + "/fd/" + std::to_string(fd), "");
}

}  // namespace podlimits::testing
