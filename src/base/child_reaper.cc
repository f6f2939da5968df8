#include "base/child_reaper.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/fs.h"

namespace podlimits {
namespace {

// Statuses of reaped orphans kept for a late Adopt; a container's init is adopted within a
// runtime call of its death, so a few hundred is plenty.
constexpr std::size_t kRememberedOrphans = 512;

// The pids in /proc/self/task/*/children: every child of every thread of this process,
// re-parented orphans included.
std::vector<pid_t> Children() {
  std::vector<pid_t> out;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return out;
  while (dirent* e = readdir(tasks)) {
    if (e->d_name[0] == '.') continue;
    // A thread that ended since readdir has no file any more: it has no children either.
    const std::string children =
        ReadWholeFile(std::string("/proc/self/task/") + e->d_name + "/children").value_or("");
    const char* p = children.data();
    const char* end = p + children.size();
    while (p < end) {
      pid_t pid = 0;
      auto [next, ec] = std::from_chars(p, end, pid);
      if (ec == std::errc() && pid > 0) out.push_back(pid);
      p = next == p ? p + 1 : next;  // past the number, or past the separator
    }
  }
  closedir(tasks);
  return out;
}

}  // namespace

ChildReaper& ChildReaper::Process() {
  static ChildReaper reaper;
  return reaper;
}

pid_t ChildReaper::SpawnOwned(const std::function<pid_t()>& spawn) {
  std::lock_guard lock(mu_);
  pid_t pid = spawn();
  if (pid > 0) owned_.insert(pid);
  return pid;
}

std::optional<int> ChildReaper::Adopt(pid_t pid) {
  std::lock_guard lock(mu_);
  for (auto it = reaped_.begin(); it != reaped_.end(); ++it) {
    if (it->first == pid) {
      int status = it->second;
      reaped_.erase(it);
      return status;
    }
  }
  owned_.insert(pid);
  return std::nullopt;
}

void ChildReaper::Release(pid_t pid) {
  std::lock_guard lock(mu_);
  owned_.erase(pid);
}

void ChildReaper::KillAndReap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  Release(pid);
}

void ChildReaper::ReapOrphans() {
  std::lock_guard lock(mu_);
  for (pid_t pid : Children()) {
    if (owned_.contains(pid)) continue;
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r != pid) continue;  // alive, or not ours after all
    reaped_.emplace_back(pid, status);
    if (reaped_.size() > kRememberedOrphans) reaped_.pop_front();
  }
}

}  // namespace podlimits
