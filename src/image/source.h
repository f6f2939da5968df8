// Where `podlimits image load` reads an image from: a directory (an OCI image layout, or an
// unpacked docker archive) or a tar of one (an OCI archive, or `docker save` output), read in
// place through libarchive so a large archive is never copied to disk before it is verified.
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/error.h"

namespace podlimits::image {

// A stream of one blob's bytes.
class BlobReader {
 public:
  virtual ~BlobReader() = default;
  // Fills `buf` from the blob; returns the number of bytes read, 0 at its end.
  virtual Result<std::size_t> Read(std::span<std::byte> buf) = 0;
};

class ImageSource {
 public:
  // A directory is read as files; a regular file as a (possibly compressed) tar archive.
  static Result<std::unique_ptr<ImageSource>> Open(const std::filesystem::path& path);

  virtual ~ImageSource() = default;

  // True if `name` (a relative path inside the source) is a regular file there.
  virtual bool Contains(std::string_view name) = 0;

  // Opens the file `name`. `what` says what it is for errors, e.g. `open layer
  // "blobs/sha256/ab..": No such file or directory`. Symlinks inside the source are followed
  // but cannot leave it: they resolve as if the source were the root directory.
  virtual Result<std::unique_ptr<BlobReader>> Open(std::string_view name,
                                                   std::string_view what) = 0;

  const std::filesystem::path& path() const { return path_; }

 protected:
  explicit ImageSource(std::filesystem::path path) : path_(std::move(path)) {}

 private:
  std::filesystem::path path_;
};

// The two kinds of source; ImageSource::Open picks one.
Result<std::unique_ptr<ImageSource>> OpenDirectorySource(const std::filesystem::path& path);
Result<std::unique_ptr<ImageSource>> OpenTarSource(const std::filesystem::path& path);

// Reads a whole blob into memory, failing when it is larger than `limit` bytes (manifests and
// configs are small; a huge one is a broken or hostile source).
Result<std::string> ReadAll(BlobReader& reader, std::size_t limit, std::string_view what,
                            std::string_view name);

}  // namespace podlimits::image
