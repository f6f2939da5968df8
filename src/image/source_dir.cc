// An image source that is a directory: an OCI image layout, or an unpacked docker archive.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fs.h"
#include "fmt/format.h"
#include "image/source.h"

namespace podlimits::image {
namespace {

class FileReader : public BlobReader {
 public:
  FileReader(UniqueFd fd, std::string name) : fd_(std::move(fd)), name_(std::move(name)) {}

  Result<std::size_t> Read(std::span<std::byte> buf) override {
    for (;;) {
      ssize_t n = read(fd_.get(), buf.data(), buf.size());
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return SystemError("read", name_, errno);
    }
  }

 private:
  UniqueFd fd_;
  std::string name_;
};

class DirectorySource : public ImageSource {
 public:
  DirectorySource(std::filesystem::path path, UniqueFd root)
      : ImageSource(std::move(path)), root_(std::move(root)) {}

  bool Contains(std::string_view name) override {
    auto clean = CleanRelativePath(name);
    if (!clean || clean->empty()) return false;
    auto fd = OpenInRoot(root_.get(), *clean, O_PATH);
    struct stat st {};
    return fd && fstat(fd->get(), &st) == 0 && S_ISREG(st.st_mode);
  }

  Result<std::unique_ptr<BlobReader>> Open(std::string_view name, std::string_view what) override {
    auto clean = CleanRelativePath(name);
    if (!clean)
      return Failure(fmt::format("open {} \"{}\": {}", what, name, clean.error().Message()));
    auto fd = OpenInRoot(root_.get(), *clean, O_RDONLY | O_NOCTTY | O_NONBLOCK);
    if (!fd) return SystemError(std::string(fmt::format("open {}", what)), name, fd.error());
    struct stat st {};
    if (fstat(fd->get(), &st) != 0) return SystemError("stat", name, errno);
    // A FIFO or device would block or never end; blobs are plain files.
    if (!S_ISREG(st.st_mode)) {
      return Failure(fmt::format("open {} \"{}\": not a regular file", what, name));
    }
    return std::make_unique<FileReader>(std::move(*fd), std::string(name));
  }

 private:
  UniqueFd root_;
};

}  // namespace

Result<std::unique_ptr<ImageSource>> OpenDirectorySource(const std::filesystem::path& path) {
  int fd = open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return SystemError("open image", path.string(), errno);
  return std::make_unique<DirectorySource>(path, UniqueFd(fd));
}

}  // namespace podlimits::image
