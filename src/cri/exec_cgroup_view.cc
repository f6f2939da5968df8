#include "cri/exec_cgroup_view.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

#include "base/unique_fd.h"

namespace podlimits::cri {
namespace {

namespace fs = std::filesystem;
const fs::path kCgroupRoot = "/sys/fs/cgroup";

Result<void> BuildView(const std::string& cgroup_path) {
  if (unshare(CLONE_FS | CLONE_NEWNS) != 0) return SystemError("unshare mount namespace", {}, errno);
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return SystemError("make mounts private", "/", errno);
  }
  // Every hierarchy the runtime namespace shows, cloned before the tmpfs covers them.
  std::vector<std::pair<UniqueFd, std::string>> kept;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kCgroupRoot, ec)) {
    if (!entry.is_directory(ec)) continue;
    UniqueFd fd(open_tree(AT_FDCWD, entry.path().c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
    if (!fd) return SystemError("clone mount", entry.path(), errno);
    kept.emplace_back(std::move(fd), entry.path().filename().string());
  }
  if (ec) return SystemError("read directory", kCgroupRoot, ec.value());
  if (mount("tmpfs", kCgroupRoot.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
            "mode=0755") != 0) {
    return SystemError("mount tmpfs on", kCgroupRoot, errno);
  }
  for (const auto& [fd, name] : kept) {
    const fs::path at = kCgroupRoot / name;
    if (mkdir(at.c_str(), 0755) != 0) return SystemError("mkdir", at, errno);
    if (move_mount(fd.get(), "", AT_FDCWD, at.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0) {
      return SystemError("move mount to", at, errno);
    }
  }
  const fs::path freezer = kCgroupRoot / "freezer" / fs::path(cgroup_path).relative_path();
  fs::create_directories(freezer, ec);
  if (ec) return SystemError("mkdir", freezer, ec.value());
  const fs::path state = freezer / "freezer.state";
  UniqueFd f(open(state.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!f) return SystemError("create", state, errno);
  if (write(f.get(), "THAWED\n", 7) != 7) return SystemError("write", state, errno);
  return {};
}

}  // namespace

bool ExecNeedsFreezerView() {
  std::error_code ec;
  return !fs::exists(kCgroupRoot / "cgroup.controllers", ec) &&
         !fs::exists(kCgroupRoot / "freezer", ec);
}

Result<void> RunInFreezerView(const std::string& cgroup_path, const std::function<void()>& fn) {
  Result<void> built;
  std::thread thread([&] {
    built = BuildView(cgroup_path);
    if (built) fn();
  });
  thread.join();
  if (!built) return std::unexpected(built.error().Wrap("exec's cgroup view"));
  return {};
}

}  // namespace podlimits::cri
