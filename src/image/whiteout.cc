#include "image/whiteout.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <vector>

#include "base/error.h"
#include "base/fs.h"
#include "fmt/format.h"

namespace podlimits::image {
namespace {

std::string Join(std::string_view dir, std::string_view name) {
  return dir.empty() ? std::string(name) : fmt::format("{}/{}", dir, name);
}

// Opens a directory of the rootfs for a whiteout. nullopt: it does not exist, so there is
// nothing to hide.
Result<std::optional<UniqueFd>> OpenDir(int rootfs_fd, std::string_view dir,
                                        std::string_view entry) {
  auto fd = OpenBeneath(rootfs_fd, dir, O_RDONLY | O_DIRECTORY);
  if (fd) return std::optional<UniqueFd>(*std::move(fd));
  if (fd.error() == ENOENT || fd.error() == ENOTDIR) return std::optional<UniqueFd>();
  if (fd.error() == ELOOP || fd.error() == EXDEV) {
    return Failure(
        fmt::format("whiteout \"{}\": \"{}\" is or goes through a symlink; refusing to follow it",
                    entry, dir.empty() ? "." : dir));
  }
  return SystemError("open", dir.empty() ? "." : dir, fd.error());
}

// Removes the entries of `dir_fd` (the directory `dir`) that this layer did not write,
// descending into the directories it did write.
Result<void> ClearLower(int dir_fd, const std::string& dir, const LayerPaths& written) {
  int dup_fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (dup_fd < 0) return SystemError("dup", dir, errno);
  DIR* d = fdopendir(dup_fd);
  if (d == nullptr) {
    int err = errno;
    close(dup_fd);
    return SystemError("opendir", dir, err);
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      names.emplace_back(e->d_name);
    }
  }
  closedir(d);
  for (const auto& name : names) {
    std::string path = Join(dir, name);
    if (!written.Contains(path)) {
      if (auto r = RemoveTreeAt(dir_fd, name, path); !r) return r;
      continue;
    }
    struct stat st {};
    if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return SystemError("stat", path, errno);
    }
    if (!S_ISDIR(st.st_mode)) continue;
    int child = openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child < 0) return SystemError("open", path, errno);
    UniqueFd child_fd(child);
    if (auto r = ClearLower(child_fd.get(), path, written); !r) return r;
  }
  return {};
}

}  // namespace

void LayerPaths::Add(std::string_view path) {
  while (!path.empty()) {
    if (!paths_.emplace(path).second) return;  // its ancestors are already there
    path = SplitParent(path).first;
  }
}

Result<void> ApplyWhiteout(int rootfs_fd, std::string_view hidden, const LayerPaths& written) {
  auto [parent, name] = SplitParent(hidden);
  auto dir = OpenDir(rootfs_fd, parent, hidden);
  if (!dir) return std::unexpected(dir.error());
  if (!dir->has_value()) return {};
  int parent_fd = (*dir)->get();
  std::string path(hidden);
  if (!written.Contains(hidden)) return RemoveTreeAt(parent_fd, std::string(name), path);

  // This layer recreated the path: the lower version is replaced, but only a directory has
  // lower content left to hide.
  struct stat st {};
  if (fstatat(parent_fd, std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return {};
    return SystemError("stat", path, errno);
  }
  if (!S_ISDIR(st.st_mode)) return {};
  int fd =
      openat(parent_fd, std::string(name).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return SystemError("open", path, errno);
  UniqueFd child(fd);
  return ClearLower(child.get(), path, written);
}

Result<void> ApplyOpaque(int rootfs_fd, std::string_view dir, const LayerPaths& written) {
  auto fd = OpenDir(rootfs_fd, dir, Join(dir, kOpaqueWhiteout));
  if (!fd) return std::unexpected(fd.error());
  if (!fd->has_value()) return {};
  return ClearLower((*fd)->get(), std::string(dir), written);
}

}  // namespace podlimits::image
