// The children of this process, and who waits for each.
//
// podlimits is the subreaper of its containers (as containerd's shim and conmon are): a
// container's init process is re-parented to it when the runtime that forked it exits, and so
// is anything a hostPID container leaves behind when its init dies. With several pods running
// at once in one process (the node agent runs every pod concurrently), a blanket
// waitpid(-1) would steal the exit status a runtime call or another pod's worker waits for.
// So every child someone waits for is owned here, by pid, and ReapOrphans reaps only the others:
//
//   - RunChild (child_process.h) spawns with the registry locked and owns the pid until it has
//     reaped it, so no ReapOrphans can take it in between;
//   - a pod worker Adopts a container's init process once the runtime has created it; if the
//     process had died and been reaped as an orphan in the meantime, Adopt returns its status;
//   - ReapOrphans reaps every other exited child and remembers the statuses of the last ones.
#pragma once

#include <sys/types.h>

#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

namespace podlimits {

class ChildReaper {
 public:
  // The process's one reaper.
  static ChildReaper& Process();

  // Calls `spawn` (which returns a child's pid, or -1) with the registry locked, and owns the
  // pid it returns.
  pid_t SpawnOwned(const std::function<pid_t()>& spawn);

  // Owns `pid`, a child of this process from now on waited for by the caller. Returns the
  // wait status when ReapOrphans already reaped it (it exited before this call).
  std::optional<int> Adopt(pid_t pid);

  // The owner has reaped `pid`, or will not wait for it any more.
  void Release(pid_t pid);

  // For an owned child that must go now: SIGKILL, wait for it (short: it cannot ignore the
  // signal), Release.
  void KillAndReap(pid_t pid);

  // Reaps every exited child that nobody owns (non-blocking).
  void ReapOrphans();

  ChildReaper(const ChildReaper&) = delete;
  ChildReaper& operator=(const ChildReaper&) = delete;

 private:
  ChildReaper() = default;

  std::mutex mu_;
  std::set<pid_t> owned_;
  std::deque<std::pair<pid_t, int>> reaped_;  // orphans' wait statuses, oldest first
};

}  // namespace podlimits
