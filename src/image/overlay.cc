#include "image/overlay.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

#include "base/error.h"
#include "base/fs.h"
#include "fmt/format.h"

namespace podlimits::image {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDirs[] = {"upper", "work", "merged"};

// overlayfs separates mount options with ',' and lower dirs with ':'; rather than rely on
// escaping, paths containing them (or a backslash) are refused.
Result<void> CheckOptionPath(const fs::path& path) {
  if (path.string().find_first_of(",:\\") != std::string::npos) {
    return Failure(fmt::format(
        "mount overlay: path \"{}\" contains ',', ':' or '\\', which overlayfs options cannot "
        "carry",
        path.string()));
  }
  return {};
}

std::string MountHint(int err) {
  switch (err) {
    case ENODEV:
      return " (overlayfs is not available: load the overlay module)";
    case EPERM:
      return " (mounting needs CAP_SYS_ADMIN)";
    case EINVAL:
      return " (the upper and work dirs must be on one filesystem that can hold an overlay "
             "upper dir: not overlayfs itself, not NFS)";
    default:
      return "";
  }
}

// Undoes PrepareContainerRootfs's mkdirs after a failure.
void RemoveCreated(const fs::path& dir, int created) {
  for (int i = created - 1; i >= 0; --i) rmdir((dir / kDirs[i]).c_str());
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "/a/b/" and "/a/./b" name the same directory as "/a/b".
fs::path NormalDir(const fs::path& p) {
  fs::path n = p.lexically_normal();
  return n.has_filename() || n == n.root_path() ? n : n.parent_path();
}

}  // namespace

Result<fs::path> PrepareContainerRootfs(const fs::path& image_rootfs,
                                        const fs::path& container_dir) {
  struct stat lower_st {};
  if (stat(image_rootfs.c_str(), &lower_st) != 0) {
    return SystemError("stat image rootfs", image_rootfs.string(), errno);
  }
  if (!S_ISDIR(lower_st.st_mode)) {
    return Failure(fmt::format("image rootfs \"{}\": not a directory", image_rootfs.string()));
  }
  std::error_code ec;
  fs::create_directories(container_dir, ec);
  if (ec) {
    return Failure(fmt::format("mkdir \"{}\": {}", container_dir.string(), ec.message()));
  }
  fs::path lower = fs::canonical(image_rootfs, ec);
  fs::path dir = ec ? fs::path() : fs::canonical(container_dir, ec);
  if (ec) return Failure(fmt::format("resolve \"{}\": {}", container_dir.string(), ec.message()));
  for (const fs::path& p : {lower, dir}) {
    if (auto ok = CheckOptionPath(p); !ok) return std::unexpected(ok.error());
  }

  int created = 0;
  for (const char* name : kDirs) {
    // The upper dir's attributes are those of the container's "/": copy the image's, so a
    // non-root container user can still traverse it.
    mode_t mode = std::string_view(name) == "work" ? 0700 : (lower_st.st_mode & 07777);
    fs::path p = dir / name;
    if (mkdir(p.c_str(), 0700) != 0) {
      int err = errno;
      RemoveCreated(dir, created);
      if (err == EEXIST) {
        return Failure(fmt::format(
            "prepare rootfs \"{}\": \"{}\" already exists (release the previous rootfs first)",
            dir.string(), p.string()));
      }
      return SystemError("mkdir", p.string(), err);
    }
    ++created;
    // chown fails without CAP_CHOWN; mounting needs more than that anyway, so let mount say so.
    bool upper = std::string_view(name) == "upper";
    if (chmod(p.c_str(), mode) != 0 ||
        (upper && chown(p.c_str(), lower_st.st_uid, lower_st.st_gid) != 0 && errno != EPERM)) {
      int err = errno;
      RemoveCreated(dir, created);
      return SystemError("set attributes of", p.string(), err);
    }
  }

  fs::path merged = dir / "merged";
  std::string options = fmt::format("lowerdir={},upperdir={},workdir={}", lower.string(),
                                    (dir / "upper").string(), (dir / "work").string());
  // "volatile" (Linux 5.10+) skips syncing the upper filesystem, which otherwise makes every
  // unmount sync all of it (tens of milliseconds per container here). A container's writable
  // layer never outlives the container, so there is nothing a crash could lose. Kernels that
  // do not know the option refuse it with EINVAL; they get the plain mount.
  int rc = mount("overlay", merged.c_str(), "overlay", 0, (options + ",volatile").c_str());
  if (rc != 0 && errno == EINVAL)
    rc = mount("overlay", merged.c_str(), "overlay", 0, options.c_str());
  if (rc != 0) {
    int err = errno;
    // The kernel may have populated work/ (work/work) before failing.
    (void)RemoveTree(dir / "work");
    RemoveCreated(dir, created);
    return Failure(
        ErrnoMessage(fmt::format("mount overlay ({}) on", options), merged.string(), err) +
        MountHint(err));
  }
  return merged;
}

Result<void> ReleaseContainerRootfs(const fs::path& container_dir) {
  fs::path merged = container_dir / "merged";
  std::error_code ec;
  if (fs::exists(fs::symlink_status(merged, ec))) {
    // Several mounts may be stacked on merged (a retried prepare elsewhere); take them all.
    for (int i = 0;; ++i) {
      auto mounted = IsMountRoot(merged);
      if (!mounted) return std::unexpected(mounted.error());
      if (!*mounted) break;
      if (i == 16) {
        return Failure(
            fmt::format("unmount \"{}\": still mounted after {} unmounts", merged.string(), i));
      }
      if (umount2(merged.c_str(), UMOUNT_NOFOLLOW) == 0) continue;
      // Busy (a process still has its cwd or a file there): detach it now; the kernel frees
      // it when the last user goes, and nothing of it is reachable from here meanwhile.
      if (errno != EBUSY || umount2(merged.c_str(), UMOUNT_NOFOLLOW | MNT_DETACH) != 0) {
        return SystemError("unmount", merged.string(), errno);
      }
    }
  }
  for (const char* name : kDirs) {
    if (auto r = RemoveTree(container_dir / name); !r) return r;
  }
  return {};
}

Result<std::vector<fs::path>> OverlaysUsingLowerDir(const fs::path& lower,
                                                    const fs::path& mountinfo) {
  auto text = ReadSmallFile(mountinfo, 64 << 20);
  if (!text) return std::unexpected(text.error());
  std::error_code ec;
  fs::path want = NormalDir(fs::weakly_canonical(lower, ec));
  if (ec) want = NormalDir(lower);

  std::vector<fs::path> out;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS"
    std::size_t sep = line.find(" - ");
    if (sep == std::string::npos) continue;
    std::istringstream head(line.substr(0, sep));
    std::istringstream tail(line.substr(sep + 3));
    std::string id, parent, dev, root, mount_point, fstype, source, super;
    head >> id >> parent >> dev >> root >> mount_point;
    tail >> fstype >> source >> super;
    if (fstype != "overlay") continue;
    std::istringstream opts(super);
    for (std::string opt; std::getline(opts, opt, ',');) {
      if (!opt.starts_with("lowerdir=")) continue;
      std::istringstream dirs(opt.substr(9));
      for (std::string d; std::getline(dirs, d, ':');) {
        if (NormalDir(Unescape(d)) == want) {
          out.emplace_back(Unescape(mount_point));
        }
      }
    }
  }
  return out;
}

}  // namespace podlimits::image
