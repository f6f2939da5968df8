#include "image/unpack.h"

#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <utility>

#include "base/error.h"
#include "base/fs.h"
#include "fmt/format.h"
#include "image/layer.h"
#include "image/metadata.h"

namespace podlimits::image {
namespace {

namespace fs = std::filesystem;

// Removes the staging directory unless the unpack succeeded.
class StagingDir {
 public:
  explicit StagingDir(fs::path path) : path_(std::move(path)) {}
  ~StagingDir() {
    if (!path_.empty()) (void)RemoveTree(path_);
  }
  const fs::path& path() const { return path_; }
  fs::path Release() { return std::exchange(path_, fs::path()); }

 private:
  fs::path path_;
};

Result<void> ApplyLayers(ImageSource& source, const ResolvedImage& image, const fs::path& rootfs) {
  for (const BlobRef& layer : image.layers) {
    auto reader = OpenVerified(source, layer);
    if (!reader) return std::unexpected(reader.error());
    auto stats = ApplyLayer(**reader, rootfs, layer.path);
    // A corrupted or substituted blob usually also breaks decompression or the tar format;
    // the digest mismatch is the real cause, so it is reported first.
    auto verified = (*reader)->Finish();
    if (!verified) return std::unexpected(verified.error());
    if (!stats) return std::unexpected(stats.error());
  }
  return {};
}

// Bytes of regular file content in the rootfs, each hardlinked file once (what `du
// --apparent-size` reports), for `image ls`.
std::uint64_t ContentSize(const fs::path& rootfs) {
  std::uint64_t total = 0;
  std::set<std::pair<dev_t, ino_t>> seen;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(rootfs, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (st.st_nlink > 1 && !seen.emplace(st.st_dev, st.st_ino).second) continue;
    total += static_cast<std::uint64_t>(st.st_size);
  }
  return total;
}

}  // namespace

Result<void> VerifyLayers(ImageSource& source, const ResolvedImage& image) {
  for (const BlobRef& layer : image.layers) {
    auto reader = OpenVerified(source, layer);
    if (!reader) return std::unexpected(reader.error());
    if (auto ok = (*reader)->Finish(); !ok) return ok;
  }
  return {};
}

Result<fs::path> UnpackImage(ImageSource& source, const ResolvedImage& image,
                             const ParsedImageConfig& config, const fs::path& store_root) {
  std::string tmpl = (store_root / ".load-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) return SystemError("mkdtemp", tmpl, errno);
  StagingDir staging{fs::path(tmpl)};

  fs::path rootfs = staging.path() / "rootfs";
  if (mkdir(rootfs.c_str(), 0755) != 0 || chmod(rootfs.c_str(), 0755) != 0) {
    return SystemError("mkdir", rootfs.string(), errno);
  }
  if (auto ok = ApplyLayers(source, image, rootfs); !ok) return std::unexpected(ok.error());

  ImageMetadata m;
  m.id = image.config.digest.hex;
  m.config_digest = image.config.digest.String();
  m.manifest_digest = image.manifest_digest ? image.manifest_digest->String() : "";
  m.format = std::string(ImageFormatName(image.format));
  m.architecture = config.architecture;
  m.os = config.os;
  m.created = config.created;
  for (const BlobRef& layer : image.layers) m.layers.push_back(layer.digest.String());
  m.size = ContentSize(rootfs);
  m.config = config.config;
  if (auto ok = WriteFileAtomically(staging.path() / "image.json", EncodeImageMetadata(m)); !ok) {
    return std::unexpected(ok.error());
  }
  return staging.Release();
}

}  // namespace podlimits::image
