#include "cri/runtime_mount_namespace.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "base/error.h"
#include "cgroups/detect.h"

namespace podlimits::cri {
namespace {

namespace fs = std::filesystem;

const fs::path kCgroupRoot = "/sys/fs/cgroup";
constexpr unsigned long kCgroupMountFlags = MS_NOSUID | MS_NODEV | MS_NOEXEC;

std::string Errno(int e) {
  return std::strerror(e);
}

bool Below(const fs::path& path, const fs::path& root) {
  auto rel = path.lexically_normal().lexically_relative(root);
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

// A managed cgroup2 mount on a v1/hybrid machine, cloned (open_tree) before the old mounts
// are detached, so it comes back exactly as the host has it. A fresh cgroup2 mount would be
// worse than useless: made from the init cgroup namespace it resets the superblock's flags
// (nsdelegate, memory_recursiveprot) for the whole machine.
struct KeptMount {
  int fd = -1;
  fs::path mount_point;
};

class KeptMounts {
 public:
  ~KeptMounts() {
    for (const KeptMount& m : mounts_) close(m.fd);
  }
  std::vector<KeptMount>& get() { return mounts_; }

 private:
  std::vector<KeptMount> mounts_;
};

Result<std::string> ReadMountinfo() {
  const char* file = "/proc/self/mountinfo";
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return SystemError("read", file, errno);
  std::string text;
  char buf[8192];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  return text;
}

// Detaches every mount at or below /sys/fs/cgroup in this (private) namespace. Covering them
// with a tmpfs would not be enough: runc finds cgroup hierarchies in /proc/self/mountinfo, which
// still lists covered mounts, and would then make its cgroups in the tmpfs above them.
// A lazy unmount takes every mount below the one it names with it, so only the outermost are
// named: on a hybrid host one umount2 instead of a dozen (some 80 µs of the kernel's time each,
// on every `run` and every pod start).
Result<void> DetachCgroupMounts() {
  auto text = ReadMountinfo();
  if (!text) return std::unexpected(text.error());
  auto entries = cgroups::ParseMountinfo(*text);
  if (!entries) return Failure(entries.error().Message());
  std::vector<fs::path> outermost;
  for (const auto& e : *entries) {
    const fs::path& mp = e.mount_point;
    if (mp != kCgroupRoot && !Below(mp, kCgroupRoot)) continue;
    const bool covered = std::any_of(outermost.begin(), outermost.end(),
                                     [&](const fs::path& o) { return mp == o || Below(mp, o); });
    if (!covered) outermost.push_back(mp);
  }
  for (const fs::path& mp : outermost) {
    if (umount2(mp.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
      return SystemError("umount", mp, errno);
    }
  }
  return {};
}

Result<void> MakeDirectories(const fs::path& dir) {
  fs::path at;
  for (const fs::path& part : dir) {
    at /= part;
    if (mkdir(at.c_str(), 0755) != 0 && errno != EEXIST) {
      return SystemError("mkdir", at, errno);
    }
  }
  return {};
}

Result<void> BuildCgroupView(std::span<const cgroups::ManagedHierarchy> managed, KeptMounts& kept) {
  for (const auto& h : managed) {
    if (h.version != cgroups::CgroupVersion::kV2) continue;
    int fd = open_tree(AT_FDCWD, h.tree.root().c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (fd < 0) {
      return SystemError("clone mount", h.tree.root(), errno);
    }
    kept.get().push_back({fd, h.tree.root()});
  }
  if (auto d = DetachCgroupMounts(); !d) return d;
  if (mount("tmpfs", kCgroupRoot.c_str(), "tmpfs", kCgroupMountFlags, "mode=0755") != 0) {
    return SystemError("mount tmpfs on", kCgroupRoot, errno);
  }
  for (const auto& h : managed) {
    if (h.version != cgroups::CgroupVersion::kV1) continue;
    const fs::path& mp = h.tree.root();
    if (auto d = MakeDirectories(mp); !d) return d;
    // The same controllers as the host's mount: the kernel then hands back that hierarchy.
    const std::string controllers = Joined(h.controllers);
    if (mount("cgroup", mp.c_str(), "cgroup", kCgroupMountFlags, controllers.c_str()) != 0) {
      return Failure(
          fmt::format("mount cgroup ({}) on \"{}\": {}", controllers, mp.string(), Errno(errno)));
    }
  }
  for (const KeptMount& m : kept.get()) {
    if (auto d = MakeDirectories(m.mount_point); !d) return d;
    if (move_mount(m.fd, "", AT_FDCWD, m.mount_point.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0) {
      return SystemError("move mount cgroup2 to", m.mount_point, errno);
    }
  }
  return {};
}

}  // namespace

Result<void> EnterRuntimeMountNamespace(std::span<const cgroups::ManagedHierarchy> managed) {
  const bool any_v1 = std::any_of(managed.begin(), managed.end(), [](const auto& h) {
    return h.version == cgroups::CgroupVersion::kV1;
  });
  // Checked before anything changes: the runtimes only look below /sys/fs/cgroup.
  if (any_v1) {
    for (const auto& h : managed) {
      if (!Below(h.tree.root(), kCgroupRoot)) {
        return Failure(fmt::format(
            "cgroup hierarchy \"{}\": not below \"{}\", where OCI runtimes look for cgroups",
            h.tree.root().string(), kCgroupRoot.string()));
      }
    }
  }

  if (unshare(CLONE_NEWNS) != 0) {
    return Failure(fmt::format("unshare(CLONE_NEWNS): {}", Errno(errno)));
  }
  auto stayed = [](std::string message) -> std::unexpected<Error> {
    return Failure(message + " (this process is left in its new mount namespace)");
  };
  // Private before anything else: no mount or unmount below may reach the machine's namespace.
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return stayed(fmt::format("make mounts private below \"/\": {}", Errno(errno)));
  }
  if (!any_v1) return {};  // cgroup v2: every runtime sees the one tree it needs

  KeptMounts kept;
  if (auto view = BuildCgroupView(managed, kept); !view) return stayed(view.error().Message());
  return {};
}

}  // namespace podlimits::cri
