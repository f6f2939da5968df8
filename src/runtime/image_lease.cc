#include "runtime/image_lease.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace podlimits::runtime {
namespace {

constexpr const char* kLockFile = ".in-use";

std::string Errno(const char* op, const std::filesystem::path& path) {
  return fmt::format("{} \"{}\": {}", op, path.string(), std::strerror(errno));
}

}  // namespace

std::expected<ImageLease, std::string> ImageLease::Acquire(const std::filesystem::path& image_dir) {
  std::filesystem::path file = image_dir / kLockFile;
  UniqueFd fd(open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return std::unexpected(Errno("open", file));
  while (flock(fd.get(), LOCK_SH) != 0) {
    if (errno != EINTR) return std::unexpected(Errno("flock", file));
  }
  // A removal that won the race renamed the directory away before we locked: the file we hold is
  // no longer the one at `file`.
  struct stat held, now;
  if (fstat(fd.get(), &held) != 0) return std::unexpected(Errno("fstat", file));
  if (stat(file.c_str(), &now) != 0 || held.st_ino != now.st_ino || held.st_dev != now.st_dev) {
    return std::unexpected(fmt::format("image at \"{}\" was removed", image_dir.string()));
  }
  return ImageLease(std::move(fd));
}

std::expected<bool, std::string> ImageLeased(const std::filesystem::path& image_dir) {
  std::filesystem::path file = image_dir / kLockFile;
  UniqueFd fd(open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) {
    if (errno == ENOENT) return false;
    return std::unexpected(Errno("open", file));
  }
  if (flock(fd.get(), LOCK_EX | LOCK_NB) == 0) return false;  // released when fd closes
  if (errno == EWOULDBLOCK) return true;
  return std::unexpected(Errno("flock", file));
}

}  // namespace podlimits::runtime
