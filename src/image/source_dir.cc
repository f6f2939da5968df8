// An image source that is a directory: an OCI image layout, or an unpacked docker archive.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "fmt/format.h"
#include "image/source.h"

namespace podlimits::image {
namespace {

class FileReader : public BlobReader {
 public:
  FileReader(UniqueFd fd, std::string name) : fd_(std::move(fd)), name_(std::move(name)) {}

  std::expected<std::size_t, std::string> Read(std::span<std::byte> buf) override {
    for (;;) {
      ssize_t n = read(fd_.get(), buf.data(), buf.size());
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return std::unexpected(ErrnoMessage("read", name_));
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

  std::expected<std::unique_ptr<BlobReader>, std::string> Open(std::string_view name,
                                                               std::string_view what) override {
    auto clean = CleanRelativePath(name);
    if (!clean)
      return std::unexpected(fmt::format("open {} \"{}\": {}", what, name, clean.error()));
    auto fd = OpenInRoot(root_.get(), *clean, O_RDONLY | O_NOCTTY | O_NONBLOCK);
    if (!fd) return std::unexpected(ErrnoMessage(fmt::format("open {}", what), name, fd.error()));
    struct stat st {};
    if (fstat(fd->get(), &st) != 0) return std::unexpected(ErrnoMessage("stat", name));
    // A FIFO or device would block or never end; blobs are plain files.
    if (!S_ISREG(st.st_mode)) {
      return std::unexpected(fmt::format("open {} \"{}\": not a regular file", what, name));
    }
    return std::make_unique<FileReader>(std::move(*fd), std::string(name));
  }

 private:
  UniqueFd root_;
};

}  // namespace

std::expected<std::unique_ptr<ImageSource>, std::string> OpenDirectorySource(
    const std::filesystem::path& path) {
  int fd = open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return std::unexpected(ErrnoMessage("open image", path.string()));
  return std::make_unique<DirectorySource>(path, UniqueFd(fd));
}

}  // namespace podlimits::image
