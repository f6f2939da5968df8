// An image source that is a tar archive: an OCI archive (a tar of an image layout) or the
// output of `docker save`. The archive is read in place: one pass catalogues its entries, and
// each blob is then streamed from a fresh reader positioned at its entry (libarchive skips the
// data of the entries before it, seeking when the archive is uncompressed).
#include <archive.h>
#include <archive_entry.h>

#include <map>
#include <vector>

#include "base/error.h"
#include "base/fs.h"
#include "fmt/format.h"
#include "image/archive_error.h"
#include "image/source.h"

namespace podlimits::image {
namespace {

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveDeleter>;

struct Entry {
  std::size_t ordinal = 0;  // position in the archive, counting from 0
  mode_t type = 0;          // AE_IFREG, AE_IFDIR, AE_IFLNK, ...
  std::string symlink;      // target of a symlink
  std::string hardlink;     // cleaned target of a hardlink
};

Result<ArchivePtr> OpenArchive(const std::filesystem::path& path) {
  ArchivePtr a(archive_read_new());
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_gnutar(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) {
    return Failure(
        fmt::format("open archive \"{}\": {}", path.string(), ArchiveError(a.get())));
  }
  return a;
}

class TarEntryReader : public BlobReader {
 public:
  TarEntryReader(ArchivePtr a, std::string name) : a_(std::move(a)), name_(std::move(name)) {}

  Result<std::size_t> Read(std::span<std::byte> buf) override {
    la_ssize_t n = archive_read_data(a_.get(), buf.data(), buf.size());
    if (n < 0) {
      return Failure(fmt::format("read \"{}\": {}", name_, ArchiveError(a_.get())));
    }
    return static_cast<std::size_t>(n);
  }

 private:
  ArchivePtr a_;
  std::string name_;
};

class TarSource : public ImageSource {
 public:
  TarSource(std::filesystem::path path, std::map<std::string, Entry> entries)
      : ImageSource(std::move(path)), entries_(std::move(entries)) {}

  bool Contains(std::string_view name) override {
    auto entry = Resolve(name);
    return entry && (*entry)->type == AE_IFREG;
  }

  Result<std::unique_ptr<BlobReader>> Open(std::string_view name, std::string_view what) override {
    auto entry = Resolve(name);
    if (!entry)
      return Failure(fmt::format("open {} \"{}\": {}", what, name, entry.error().Message()));
    if ((*entry)->type != AE_IFREG) {
      return Failure(fmt::format("open {} \"{}\": not a regular file in archive \"{}\"", what, name,
                                 path().string()));
    }
    auto a = OpenArchive(path());
    if (!a) return std::unexpected(a.error());
    archive_entry* e = nullptr;
    for (std::size_t i = 0;; ++i) {
      int r = archive_read_next_header(a->get(), &e);
      if (r == ARCHIVE_EOF || r < ARCHIVE_WARN) {
        return Failure(fmt::format("open {} \"{}\": archive \"{}\" changed while reading", what,
                                   name, path().string()));
      }
      if (i == (*entry)->ordinal) break;
    }
    return std::make_unique<TarEntryReader>(std::move(*a), std::string(name));
  }

 private:
  // Follows symlinks and hardlinks between entries (docker save links duplicate layers).
  Result<const Entry*> Resolve(std::string_view name) const {
    auto clean = CleanRelativePath(name);
    if (!clean) return std::unexpected(clean.error());
    std::string current = *clean;
    for (int hops = 0; hops < 16; ++hops) {
      auto it = entries_.find(current);
      if (it == entries_.end()) {
        return Failure(fmt::format("no such entry in archive \"{}\"", path().string()));
      }
      const Entry& entry = it->second;
      if (!entry.hardlink.empty()) {
        current = entry.hardlink;
      } else if (entry.type == AE_IFLNK) {
        current = ResolveInArchive(current, entry.symlink);
      } else {
        return &entry;
      }
    }
    return Failure("too many levels of links");
  }

  // A symlink target as the archive's own root directory would resolve it: absolute targets
  // start at the archive's top, ".." never goes above it.
  static std::string ResolveInArchive(std::string_view link_path, std::string_view target) {
    std::vector<std::string_view> parts;
    auto push_all = [&](std::string_view path) {
      for (std::size_t pos = 0; pos <= path.size();) {
        std::size_t end = path.find('/', pos);
        if (end == std::string_view::npos) end = path.size();
        std::string_view part = path.substr(pos, end - pos);
        pos = end + 1;
        if (part.empty() || part == ".") continue;
        if (part == "..") {
          if (!parts.empty()) parts.pop_back();
        } else {
          parts.push_back(part);
        }
      }
    };
    if (!target.starts_with('/')) push_all(SplitParent(link_path).first);
    push_all(target);
    std::string out;
    for (auto part : parts) {
      if (!out.empty()) out += '/';
      out += part;
    }
    return out;
  }

  std::map<std::string, Entry> entries_;
};

}  // namespace

Result<std::unique_ptr<ImageSource>> OpenTarSource(const std::filesystem::path& path) {
  auto a = OpenArchive(path);
  if (!a) return std::unexpected(a.error());
  std::map<std::string, Entry> entries;
  archive_entry* e = nullptr;
  for (std::size_t ordinal = 0;; ++ordinal) {
    int r = archive_read_next_header(a->get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN) {
      return Failure(
          fmt::format("read archive \"{}\": {}", path.string(), ArchiveError(a->get())));
    }
    // Entries whose names would leave the archive (absolute, "..") can never be referenced by
    // a manifest path, which is cleaned the same way; they are simply not catalogued.
    auto name = CleanRelativePath(archive_entry_pathname(e) ? archive_entry_pathname(e) : "");
    if (!name || name->empty()) continue;
    Entry entry;
    entry.ordinal = ordinal;
    entry.type = archive_entry_filetype(e);
    if (const char* link = archive_entry_hardlink(e)) {
      auto target = CleanRelativePath(link);
      if (!target) continue;
      entry.hardlink = *target;
    } else if (entry.type == AE_IFLNK) {
      entry.symlink = archive_entry_symlink(e) ? archive_entry_symlink(e) : "";
    }
    entries[*name] = std::move(entry);  // the last entry of a name wins, as when extracting
  }
  return std::make_unique<TarSource>(path, std::move(entries));
}

}  // namespace podlimits::image
