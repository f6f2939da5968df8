#include "base/fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "base/error.h"
#include "fmt/format.h"

namespace podlimits {
namespace {

std::expected<UniqueFd, int> OpenAt2(int dirfd, std::string_view rel, int flags,
                                     std::uint64_t resolve) {
  // glibc 2.36 has no openat2 wrapper.
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
  how.resolve = resolve;
  std::string path = rel.empty() ? std::string(".") : std::string(rel);
  long fd;
  do {
    fd = syscall(SYS_openat2, dirfd, path.c_str(), &how, sizeof how);
  } while (fd < 0 && errno == EAGAIN);  // a concurrent rename elsewhere; retry
  if (fd < 0) return std::unexpected(errno);
  return UniqueFd(static_cast<int>(fd));
}

std::string JoinDisplay(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

// Lists a directory's entries (without "." and ".."), read with getdents64(2) from `dirfd`
// itself: a DIR stream first needed a dup of the descriptor, an fstat and two fcntl calls, and a
// close after, for each directory a pod's teardown removes. Reading the names first keeps the
// removal loop from racing the listing it is deleting from.
Result<std::vector<std::string>> ListDir(int dirfd, const std::string& display) {
  std::vector<std::string> names;
  alignas(struct dirent64) char buf[8192];
  for (;;) {
    const ssize_t n = getdents64(dirfd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return SystemError("readdir", display, errno);
    }
    if (n == 0) return names;
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const struct dirent64*>(buf + at);
      at += e->d_reclen;
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
        names.emplace_back(e->d_name);
      }
    }
  }
}

}  // namespace

std::string ErrnoMessage(std::string_view op, std::string_view path, int err) {
  return fmt::format("{} \"{}\": {}", op, path, std::strerror(err));
}

UniqueFd OpenPidfd(pid_t pid) { return UniqueFd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0))); }

Result<std::string> CleanRelativePath(std::string_view path) {
  if (!path.empty() && path.front() == '/') {
    return Failure("absolute path");
  }
  std::string out;
  std::size_t pos = 0;
  while (pos <= path.size()) {
    std::size_t end = path.find('/', pos);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(pos, end - pos);
    pos = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return Failure("path contains \"..\"");
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

std::pair<std::string_view, std::string_view> SplitParent(std::string_view path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {std::string_view(), path};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

std::expected<UniqueFd, int> OpenBeneath(int dirfd, std::string_view rel, int flags) {
  return OpenAt2(dirfd, rel, flags, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

std::expected<UniqueFd, int> OpenInRoot(int dirfd, std::string_view rel, int flags) {
  return OpenAt2(dirfd, rel, flags, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
}

Result<void> RemoveTreeAt(int dirfd, const std::string& name, const std::string& display) {
  struct statx stx {};
  if (statx(dirfd, name.c_str(), AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_MODE | STATX_UID, &stx) !=
      0) {
    if (errno == ENOENT) return {};
    return SystemError("stat", display, errno);
  }
  if (!S_ISDIR(stx.stx_mode)) {
    if (unlinkat(dirfd, name.c_str(), 0) != 0 && errno != ENOENT) {
      return SystemError("unlink", display, errno);
    }
    return {};
  }
  if ((stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
      (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
    return Failure(fmt::format("remove \"{}\": is a mount point; refusing to descend", display));
  }
  // Without CAP_DAC_OVERRIDE a directory can only be emptied once its owner may read, write
  // and search it (images have 0555 dirs, overlayfs leaves work/work at 0000).
  if ((stx.stx_mode & 0700) != 0700 && stx.stx_uid == geteuid()) {
    fchmodat(dirfd, name.c_str(), 0700, 0);  // on failure, the open or unlink below says why
  }
  int fd = openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return SystemError("open", display, errno);
  UniqueFd dir(fd);
  auto names = ListDir(dir.get(), display);
  if (!names) return std::unexpected(names.error());
  for (const auto& child : *names) {
    if (auto r = RemoveTreeAt(dir.get(), child, JoinDisplay(display, child)); !r) return r;
  }
  if (unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    return SystemError("rmdir", display, errno);
  }
  return {};
}

Result<void> RemoveTree(const std::filesystem::path& path) {
  std::filesystem::path clean = path.lexically_normal();
  if (!clean.has_filename()) clean = clean.parent_path();
  std::filesystem::path parent = clean.has_parent_path() ? clean.parent_path() : ".";
  int fd = open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return {};
    return SystemError("open", parent.string(), errno);
  }
  UniqueFd parent_fd(fd);
  return RemoveTreeAt(parent_fd.get(), clean.filename().string(), clean.string());
}

Result<bool> IsMountRoot(const std::filesystem::path& path) {
  struct statx stx {};
  if (statx(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW, STATX_TYPE, &stx) != 0) {
    return SystemError("stat", path.string(), errno);
  }
  if ((stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) == 0) {
    return Failure(fmt::format("stat \"{}\": kernel does not report mount roots (needs Linux 5.8)",
                               path.string()));
  }
  return (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
}

Result<std::string> ReadWholeFile(const std::filesystem::path& path) {
  return ReadSmallFile(path, std::string().max_size());
}

Result<std::string> ReadSmallFile(const std::filesystem::path& path, std::size_t limit) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return SystemError("open", path.string(), errno);
  UniqueFd file(fd);
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(file.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return SystemError("read", path.string(), errno);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > limit) {
      return Failure(
          fmt::format("read \"{}\": larger than the {} bytes allowed", path.string(), limit));
    }
  }
  return out;
}

namespace {

Result<void> WriteThenRename(const std::filesystem::path& path, std::string_view content,
                             bool sync, mode_t mode) {
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp-{}", getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) return SystemError("open", tmp.string(), errno);
  UniqueFd file(fd);
  // The mode exactly, whatever the umask, before any content is in the file.
  if (fchmod(file.get(), mode) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return SystemError("chmod", tmp.string(), err);
  }
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = write(file.get(), content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      unlink(tmp.c_str());
      return SystemError("write", tmp.string(), err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (sync && fsync(file.get()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return SystemError("fsync", tmp.string(), err);
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return SystemError("rename", path.string(), err);
  }
  return {};
}

}  // namespace

Result<void> WriteFileAtomically(const std::filesystem::path& path, std::string_view content,
                                 mode_t mode) {
  return WriteThenRename(path, content, /*sync=*/true, mode);
}

Result<void> ReplaceFile(const std::filesystem::path& path, std::string_view content,
                         mode_t mode) {
  return WriteThenRename(path, content, /*sync=*/false, mode);
}

}  // namespace podlimits
