#include "image/source.h"

#include <sys/stat.h>

#include "base/error.h"
#include "base/fs.h"
#include "fmt/format.h"

namespace podlimits::image {

Result<std::unique_ptr<ImageSource>> ImageSource::Open(const std::filesystem::path& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return SystemError("open image", path.string(), errno);
  if (S_ISDIR(st.st_mode)) return OpenDirectorySource(path);
  if (S_ISREG(st.st_mode)) return OpenTarSource(path);
  return Failure(
      fmt::format("open image \"{}\": neither a directory nor an archive file", path.string()));
}

Result<std::string> ReadAll(BlobReader& reader, std::size_t limit, std::string_view what,
                            std::string_view name) {
  std::string out;
  std::byte buf[65536];
  for (;;) {
    auto n = reader.Read(buf);
    if (!n) return std::unexpected(n.error());
    if (*n == 0) return out;
    out.append(reinterpret_cast<const char*>(buf), *n);
    if (out.size() > limit) {
      return Failure(
          fmt::format("read {} \"{}\": larger than the {} bytes allowed", what, name, limit));
    }
  }
}

}  // namespace podlimits::image
