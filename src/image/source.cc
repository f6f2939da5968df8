#include "image/source.h"

#include <sys/stat.h>

#include "base/fs.h"
#include "fmt/format.h"

namespace podlimits::image {

std::expected<std::unique_ptr<ImageSource>, std::string> ImageSource::Open(
    const std::filesystem::path& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    return std::unexpected(ErrnoMessage("open image", path.string()));
  if (S_ISDIR(st.st_mode)) return OpenDirectorySource(path);
  if (S_ISREG(st.st_mode)) return OpenTarSource(path);
  return std::unexpected(
      fmt::format("open image \"{}\": neither a directory nor an archive file", path.string()));
}

std::expected<std::string, std::string> ReadAll(BlobReader& reader, std::size_t limit,
                                                std::string_view what, std::string_view name) {
  std::string out;
  std::byte buf[65536];
  for (;;) {
    auto n = reader.Read(buf);
    if (!n) return std::unexpected(n.error());
    if (*n == 0) return out;
    out.append(reinterpret_cast<const char*>(buf), *n);
    if (out.size() > limit) {
      return std::unexpected(
          fmt::format("read {} \"{}\": larger than the {} bytes allowed", what, name, limit));
    }
  }
}

}  // namespace podlimits::image
