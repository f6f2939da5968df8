#include "image/lease.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "base/error.h"

namespace podlimits::image {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLockFile = ".in-use";
constexpr const char* kHolders = ".holders";

std::string Errno(const char* op, const fs::path& path) {
  return fmt::format("{} \"{}\": {}", op, path.string(), std::strerror(errno));
}

// FNV-1a: one record per pod directory, also when two state directories run the same uid.
std::string Hash(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

// The pod directories of the records in `image_dir`, with their record files.
std::vector<std::pair<fs::path, fs::path>> Holders(const fs::path& image_dir) {
  std::vector<std::pair<fs::path, fs::path>> out;
  std::error_code ec;
  for (fs::directory_iterator it(image_dir / kHolders, ec), end; !ec && it != end;
       it.increment(ec)) {
    auto text = ReadSmallFile(it->path(), 64 * 1024);
    if (!text) continue;
    while (!text->empty() && text->back() == '\n') text->pop_back();
    out.emplace_back(*text, it->path());
  }
  return out;
}

}  // namespace

Result<ImageLease> ImageLease::Acquire(const fs::path& image_dir,
                                       std::optional<LeaseHolder> holder) {
  fs::path file = image_dir / kLockFile;
  UniqueFd fd(open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return Failure(Errno("open", file));
  while (flock(fd.get(), LOCK_SH) != 0) {
    if (errno != EINTR) return Failure(Errno("flock", file));
  }
  // A removal that won the race renamed the directory away before we locked: the file we hold is
  // no longer the one at `file`.
  struct stat held, now;
  if (fstat(fd.get(), &held) != 0) return Failure(Errno("fstat", file));
  if (stat(file.c_str(), &now) != 0 || held.st_ino != now.st_ino || held.st_dev != now.st_dev) {
    return Failure(fmt::format("image at \"{}\" was removed", image_dir.string()));
  }
  fs::path record;
  if (holder) {
    const fs::path dir = image_dir / kHolders;
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return Failure(Errno("mkdir", dir));
    }
    record = dir / (holder->uid + "." + Hash(holder->pod_dir.string()));
    if (auto ok = ReplaceFile(record, holder->pod_dir.string() + "\n"); !ok) {
      return std::unexpected(ok.error());
    }
  }
  return ImageLease(std::move(fd), std::move(record));
}

ImageLease::ImageLease(ImageLease&& other) noexcept
    : fd_(std::move(other.fd_)), record_(std::exchange(other.record_, {})) {}

ImageLease& ImageLease::operator=(ImageLease&& other) noexcept {
  if (this != &other) {
    Drop();
    fd_ = std::move(other.fd_);
    record_ = std::exchange(other.record_, {});
  }
  return *this;
}

ImageLease::~ImageLease() {
  Drop();
}

void ImageLease::Drop() {
  if (!record_.empty()) unlink(record_.c_str());
  record_.clear();
  fd_ = UniqueFd();
}

Result<std::optional<std::string>> ImageUse(const fs::path& image_dir) {
  fs::path file = image_dir / kLockFile;
  UniqueFd fd(open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid() && errno != ENOENT) return Failure(Errno("open", file));
  if (fd.valid()) {
    if (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {  // released when fd closes
      if (errno == EWOULDBLOCK) return std::optional<std::string>("in use by a running pod");
      return Failure(Errno("flock", file));
    }
  }
  for (const auto& [pod_dir, record] : Holders(image_dir)) {
    std::error_code ec;
    if (!pod_dir.empty() && fs::is_directory(pod_dir, ec)) {
      return std::optional<std::string>(fmt::format(
          "in use by the pod in \"{}\", whose podlimits process is gone while its containers "
          "may still run; the next `podlimits run` with that state directory cleans it up",
          pod_dir.string()));
    }
    unlink(record.c_str());  // its pod is gone
  }
  return std::optional<std::string>();
}

Result<bool> ImageLeased(const fs::path& image_dir) {
  auto use = ImageUse(image_dir);
  if (!use) return std::unexpected(use.error());
  return use->has_value();
}

void ForgetLeaseHolder(const fs::path& image_dir, const fs::path& pod_dir) {
  for (const auto& [dir, record] : Holders(image_dir)) {
    if (dir == pod_dir) unlink(record.c_str());
  }
}

}  // namespace podlimits::image
