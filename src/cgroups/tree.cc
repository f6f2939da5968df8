#include "cgroups/tree.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <optional>
#include <thread>
#include <utility>

#include "cgroups/file_io.h"

namespace podlimits::cgroups {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// How long Kill waits for a cgroup to empty, and how long Remove retries an rmdir that fails with
// EBUSY after killing (a killed process leaves its cgroup when it has exited, a moment later).
constexpr auto kKillTimeout = std::chrono::seconds(5);
constexpr auto kRemoveRetryTimeout = std::chrono::seconds(2);
constexpr auto kMaxPollInterval = std::chrono::milliseconds(50);

Result<fs::path> Relative(const fs::path& cgroup, const fs::path& root) {
  fs::path rel;
  for (const fs::path& part : cgroup) {
    const std::string s = part.string();
    if (s.empty() || s == "/") continue;
    if (s == "." || s == "..") {
      return Failure("resolve", root / cgroup.relative_path(),
                     "a cgroup path must not contain \".\" or \"..\"");
    }
    rel /= part;
  }
  return rel;
}

Result<void> CheckFileName(const fs::path& dir, std::string_view file) {
  if (file.empty() || file == "." || file == ".." || file.find('/') != std::string_view::npos) {
    return Failure("resolve", dir / file, "not a control file name");
  }
  return {};
}

// A control file a plain directory gets in place of the kernel's.
Result<void> CreateControlFile(const fs::path& file, const std::string& contents) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return SystemError("create", file, errno);
  ssize_t n = ::write(fd, contents.data(), contents.size());
  int err = errno;
  ::close(fd);
  if (n < 0) return SystemError("write", file, err);
  return {};
}

bool HasChildDirectories(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) return true;
  }
  return false;
}

// `dir` and every directory below it, deepest first.
std::vector<fs::path> SubtreeDeepestFirst(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) out.push_back(it->path());
  }
  std::stable_sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) {
    return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
  });
  out.push_back(dir);
  return out;
}

std::string PidList(const std::vector<pid_t>& pids) {
  std::string out;
  for (pid_t pid : pids) {
    if (!out.empty()) out += ' ';
    out += std::to_string(pid);
  }
  return out;
}

Result<std::vector<pid_t>> ReadProcs(const fs::path& dir) {
  auto text = ReadFile(dir / "cgroup.procs");
  if (!text) return std::unexpected(text.error());
  return ParseProcs(*text, dir / "cgroup.procs");
}

// The processes in `dirs`; a cgroup that vanished meanwhile holds none.
Result<std::vector<pid_t>> Members(const std::vector<fs::path>& dirs) {
  std::vector<pid_t> out;
  for (const fs::path& dir : dirs) {
    auto pids = ReadProcs(dir);
    if (!pids) {
      if (pids.error().errno_value == ENOENT) continue;
      return std::unexpected(pids.error());
    }
    out.insert(out.end(), pids->begin(), pids->end());
  }
  return out;
}

Result<void> CheckKillable(const fs::path& dir, pid_t pid) {
  if (pid <= 1) {
    return Failure("kill", dir, "refusing to signal pid " + std::to_string(pid));
  }
  if (pid == ::getpid()) {
    return Failure("kill", dir,
                   "refusing to kill the calling process (pid " + std::to_string(pid) +
                       "), which is in this cgroup");
  }
  return {};
}

int PidfdOpen(pid_t pid) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

int PidfdSendSignal(int pidfd, int sig) {
  return static_cast<int>(::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0));
}

class Backoff {
 public:
  void Sleep() {
    std::this_thread::sleep_for(interval_);
    interval_ = std::min(interval_ * 2,
                         std::chrono::duration_cast<std::chrono::microseconds>(kMaxPollInterval));
  }

 private:
  std::chrono::microseconds interval_{500};
};

}  // namespace

Result<std::vector<pid_t>> ParseProcs(std::string_view text, const fs::path& file) {
  std::vector<pid_t> out;
  for (const std::string& word : Words(text)) {
    pid_t pid = 0;
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), pid);
    if (ec != std::errc() || end != word.data() + word.size() || pid < 0) {
      return Failure("parse", file, "not a pid: \"" + word + "\"");
    }
    out.push_back(pid);
  }
  return out;
}

CgroupTree::CgroupTree(fs::path root, bool cgroupfs,
                       std::map<std::string, std::string> control_files)
    : root_(std::move(root)), cgroupfs_(cgroupfs), control_files_(std::move(control_files)) {}

CgroupTree CgroupTree::OnCgroupfs(fs::path root) {
  return CgroupTree(std::move(root), true, {});
}

CgroupTree CgroupTree::OnPlainDirectory(fs::path root,
                                        std::map<std::string, std::string> control_files) {
  return CgroupTree(std::move(root), false, std::move(control_files));
}

Result<fs::path> CgroupTree::Path(const fs::path& cgroup) const {
  auto rel = Relative(cgroup, root_);
  if (!rel) return std::unexpected(rel.error());
  return rel->empty() ? root_ : root_ / *rel;
}

Result<void> CgroupTree::Create(const fs::path& cgroup, CreateMode mode) {
  auto rel = Relative(cgroup, root_);
  if (!rel) return std::unexpected(rel.error());
  if (rel->empty()) return Failure("mkdir", root_, "the hierarchy root cannot be created");
  const std::vector<fs::path> parts(rel->begin(), rel->end());
  fs::path current = root_;
  fs::path current_rel;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    current /= parts[i];
    current_rel /= parts[i];
    const bool last = i + 1 == parts.size();
    if (::mkdir(current.c_str(), 0755) == 0) {
      created_.push_back({current_rel, last ? mode : CreateMode::kShared});
      if (!cgroupfs_) {
        for (const auto& [name, contents] : control_files_) {
          auto made = CreateControlFile(current / name, contents);
          if (!made) return made;
        }
      }
      continue;
    }
    const int err = errno;
    if (err != EEXIST) return SystemError("mkdir", current, err);
    if (last && mode == CreateMode::kExclusive) return SystemError("mkdir", current, EEXIST);
    struct stat st {};
    if (::stat(current.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return SystemError("mkdir", current, ENOTDIR);
    }
  }
  return {};
}

Result<void> CgroupTree::Write(const fs::path& cgroup, std::string_view file,
                               std::string_view value) {
  auto dir = Path(cgroup);
  if (!dir) return std::unexpected(dir.error());
  if (auto ok = CheckFileName(*dir, file); !ok) return ok;
  return WriteFile(*dir / file, value);
}

Result<std::string> CgroupTree::Read(const fs::path& cgroup, std::string_view file) const {
  auto dir = Path(cgroup);
  if (!dir) return std::unexpected(dir.error());
  if (auto ok = CheckFileName(*dir, file); !ok) return std::unexpected(ok.error());
  return ReadFile(*dir / file);
}

Result<std::vector<pid_t>> CgroupTree::Procs(const fs::path& cgroup) const {
  auto dir = Path(cgroup);
  if (!dir) return std::unexpected(dir.error());
  return ReadProcs(*dir);
}

Result<void> CgroupTree::Kill(const fs::path& cgroup) {
  auto dir = Path(cgroup);
  if (!dir) return std::unexpected(dir.error());
  return KillMembers(*dir, true);
}

Result<void> CgroupTree::SignalMembers(const fs::path& dir) {
  auto before = ReadProcs(dir);
  if (!before)
    return before.error().errno_value == ENOENT ? Result<void>() : std::unexpected(before.error());
  std::vector<std::pair<pid_t, int>> opened;  // pid, pidfd (-1: no pidfd support)
  for (pid_t pid : *before) {
    if (auto ok = CheckKillable(dir, pid); !ok) {
      for (auto& [p, fd] : opened) {
        if (fd >= 0) ::close(fd);
      }
      return ok;
    }
    int fd = PidfdOpen(pid);
    if (fd >= 0 || errno == ENOSYS) opened.emplace_back(pid, fd);
    // ESRCH: it exited already.
  }
  auto after = ReadProcs(dir);
  for (auto& [pid, fd] : opened) {
    const bool still_member = after && std::find(after->begin(), after->end(), pid) != after->end();
    if (still_member) {
      if (fd >= 0) {
        PidfdSendSignal(fd, SIGKILL);  // ESRCH: it exited meanwhile
      } else {
        ::kill(pid, SIGKILL);
      }
    }
    if (fd >= 0) ::close(fd);
  }
  if (!after && after.error().errno_value != ENOENT) return std::unexpected(after.error());
  return {};
}

Result<void> CgroupTree::KillMembers(const fs::path& dir, bool recursive) {
  auto dirs = [&] { return recursive ? SubtreeDeepestFirst(dir) : std::vector<fs::path>{dir}; };
  if (!cgroupfs_) {
    auto pids = Members(dirs());
    if (!pids) return std::unexpected(pids.error());
    if (pids->empty()) return {};
    return Failure("kill", dir,
                   "a plain directory holds no processes to kill, but its cgroup.procs lists " +
                       PidList(*pids));
  }
  bool killed_by_kernel = false;
  std::error_code ec;
  if (recursive && fs::exists(dir / "cgroup.kill", ec)) {
    auto written = WriteFile(dir / "cgroup.kill", "1");
    if (!written) return written;
    killed_by_kernel = true;
  }
  const auto deadline = Clock::now() + kKillTimeout;
  Backoff backoff;
  for (;;) {
    const std::vector<fs::path> members_of = dirs();
    auto pids = Members(members_of);
    if (!pids) return std::unexpected(pids.error());
    if (pids->empty()) return {};
    for (pid_t pid : *pids) {
      if (auto ok = CheckKillable(dir, pid); !ok) return ok;
    }
    if (Clock::now() > deadline) {
      return SystemError("kill", dir, EBUSY,
                         "processes still in the cgroup after " +
                             std::to_string(kKillTimeout.count()) + "s: " + PidList(*pids));
    }
    if (!killed_by_kernel) {
      for (const fs::path& d : members_of) {
        if (auto ok = SignalMembers(d); !ok) return ok;
      }
    }
    backoff.Sleep();
  }
}

Result<void> CgroupTree::UnlinkControlFiles(const fs::path& dir) {
  for (const auto& [name, contents] : control_files_) {
    if (::unlink((dir / name).c_str()) != 0 && errno != ENOENT) {
      return SystemError("unlink", dir / name, errno);
    }
  }
  return {};
}

Result<void> CgroupTree::RemoveOne(const fs::path& dir, bool owned) {
  auto rel = Relative(dir.lexically_relative(root_), root_);
  if (!rel) return std::unexpected(rel.error());
  if (rel->empty()) return Failure("rmdir", root_, "refusing to remove the hierarchy root");
  auto mine = std::find_if(created_.begin(), created_.end(),
                           [&](const Created& c) { return c.cgroup == *rel; });
  if (!cgroupfs_ && (owned || mine != created_.end())) {
    if (auto ok = UnlinkControlFiles(dir); !ok) return ok;
  }
  const auto deadline = Clock::now() + kRemoveRetryTimeout;
  Backoff backoff;
  for (;;) {
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) break;
    const int err = errno;
    if (err != EBUSY || !cgroupfs_) return SystemError("rmdir", dir, err);
    if (HasChildDirectories(dir)) return SystemError("rmdir", dir, EBUSY, "it has child cgroups");
    if (Clock::now() > deadline) {
      auto pids = Members({dir});
      return SystemError("rmdir", dir, EBUSY,
                         pids && !pids->empty() ? "processes remain: " + PidList(*pids)
                                                : "still busy after its processes were killed");
    }
    if (auto killed = KillMembers(dir, false); !killed) return killed;
    backoff.Sleep();
  }
  std::erase_if(created_, [&](const Created& c) { return c.cgroup == *rel; });
  return {};
}

Result<void> CgroupTree::RemoveSubtree(const fs::path& dir, bool owned) {
  if (auto killed = KillMembers(dir, true); !killed) return killed;
  for (const fs::path& d : SubtreeDeepestFirst(dir)) {
    if (auto removed = RemoveOne(d, owned); !removed) return removed;
  }
  return {};
}

Result<void> CgroupTree::RemoveTree(const fs::path& cgroup) {
  auto dir = Path(cgroup);
  if (!dir) return std::unexpected(dir.error());
  if (*dir == root_) return Failure("rmdir", root_, "refusing to remove the hierarchy root");
  struct stat st {};
  if (::lstat(dir->c_str(), &st) != 0) {
    if (errno == ENOENT) return {};
    return SystemError("stat", *dir, errno);
  }
  return RemoveSubtree(*dir, /*owned=*/true);
}

Result<CgroupTree::Removal> CgroupTree::RemoveIfUnused(const fs::path& cgroup) {
  auto dir = Path(cgroup);
  if (!dir) return std::unexpected(dir.error());
  if (*dir == root_) return Failure("rmdir", root_, "refusing to remove the hierarchy root");
  if (!cgroupfs_) {
    // A plain directory stands for an unused cgroup when it holds only the "kernel's" files;
    // cgroup.procs listing a pid counts as a process in it.
    std::error_code ec;
    if (!fs::exists(*dir, ec)) return Removal::kAbsent;
    for (fs::directory_iterator it(*dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (it->is_directory(ec) || !control_files_.contains(name)) return Removal::kInUse;
    }
    auto pids = Members({*dir});
    if (!pids) return std::unexpected(pids.error());
    if (!pids->empty()) return Removal::kInUse;
    if (auto ok = UnlinkControlFiles(*dir); !ok) return std::unexpected(ok.error());
  }
  if (::rmdir(dir->c_str()) != 0) {
    const int err = errno;
    if (err == ENOENT) return Removal::kAbsent;
    if (err == EBUSY || err == ENOTEMPTY || err == EEXIST) return Removal::kInUse;
    return SystemError("rmdir", *dir, err);
  }
  auto rel = Relative(cgroup, root_);
  if (rel) std::erase_if(created_, [&](const Created& c) { return c.cgroup == *rel; });
  return Removal::kRemoved;
}

Result<void> CgroupTree::Remove(const fs::path& cgroup) {
  auto dir = Path(cgroup);
  if (!dir) return std::unexpected(dir.error());
  return RemoveOne(*dir);
}

Result<void> CgroupTree::Teardown() {
  std::optional<Error> first;
  const std::vector<Created> entries(created_.rbegin(), created_.rend());
  for (const Created& entry : entries) {
    const fs::path dir = root_ / entry.cgroup;
    Result<void> removed;
    if (entry.mode == CreateMode::kExclusive) {
      removed = RemoveSubtree(dir);
    } else if (HasChildDirectories(dir)) {
      // A child of ours whose removal failed is already reported; any other child is some other
      // pod's, and the directory is now theirs to keep.
      const bool ours_failed = std::any_of(created_.begin(), created_.end(), [&](const Created& c) {
        return c.cgroup != entry.cgroup && (root_ / c.cgroup).parent_path() == dir;
      });
      if (!ours_failed) {
        left_in_use_.push_back(entry.cgroup);
        std::erase_if(created_, [&](const Created& c) { return c.cgroup == entry.cgroup; });
      }
      continue;
    } else {
      removed = RemoveOne(dir);
    }
    if (!removed && !first) first = removed.error();
  }
  if (first) return std::unexpected(*first);
  return {};
}

std::vector<fs::path> CgroupTree::created() const {
  std::vector<fs::path> out;
  for (const Created& c : created_) out.push_back(c.cgroup);
  return out;
}

}  // namespace podlimits::cgroups
