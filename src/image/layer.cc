#include "image/layer.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <vector>

#include "base/error.h"
#include "base/fs.h"
#include "fmt/format.h"
#include "image/archive_error.h"
#include "image/whiteout.h"

namespace podlimits::image {
namespace {

struct ReadFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct WriteFree {
  void operator()(archive* a) const { archive_write_free(a); }
};

// Feeds libarchive from a BlobReader, keeping the reader's own error (a digest or I/O error
// says more than libarchive's "truncated input").
struct Feed {
  explicit Feed(BlobReader& r) : reader(&r), buf(1 << 20) {}

  BlobReader* reader;
  std::vector<std::byte> buf;
  std::string error;

  static la_ssize_t Read(archive* a, void* self, const void** out) {
    auto* feed = static_cast<Feed*>(self);
    auto n = feed->reader->Read(feed->buf);
    if (!n) {
      feed->error = n.error().Message();
      archive_set_error(a, EIO, "%s", feed->error.c_str());
      return -1;
    }
    *out = feed->buf.data();
    return static_cast<la_ssize_t>(*n);
  }
};

// Enters a directory and returns to the previous working directory when it goes.
class WorkingDirectory {
 public:
  static Result<std::unique_ptr<WorkingDirectory>> Enter(int dir_fd, std::string_view dir) {
    int saved = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (saved < 0) return SystemError("open", ".", errno);
    UniqueFd saved_fd(saved);
    if (fchdir(dir_fd) != 0) return SystemError("chdir", dir, errno);
    return std::unique_ptr<WorkingDirectory>(new WorkingDirectory(std::move(saved_fd)));
  }
  ~WorkingDirectory() {
    // Nothing sensible can be done if the old directory vanished; it is not ours.
    [[maybe_unused]] int r = fchdir(saved_.get());
  }

 private:
  explicit WorkingDirectory(UniqueFd saved) : saved_(std::move(saved)) {}
  UniqueFd saved_;
};

// overlayfs gives meaning to its own xattrs on lower layers (opaque dirs, redirects, metacopy),
// and the image rootfs is a lower layer: an image must not be able to set them. Docker and
// containerd store whiteouts as tar entries for the same reason.
void DropOverlayXattrs(archive_entry* entry) {
  if (archive_entry_xattr_reset(entry) == 0) return;
  struct Xattr {
    std::string name;
    std::string value;
  };
  std::vector<Xattr> keep;
  bool dropped = false;
  const char* name = nullptr;
  const void* value = nullptr;
  size_t size = 0;
  while (archive_entry_xattr_next(entry, &name, &value, &size) == ARCHIVE_OK) {
    std::string_view n(name);
    if (n.starts_with("trusted.overlay.") || n.starts_with("user.overlay.")) {
      dropped = true;
    } else {
      keep.push_back({std::string(n), std::string(static_cast<const char*>(value), size)});
    }
  }
  if (!dropped) return;
  archive_entry_xattr_clear(entry);
  for (const auto& x : keep) {
    archive_entry_xattr_add_entry(entry, x.name.c_str(), x.value.data(), x.value.size());
  }
}

class LayerWriter {
 public:
  LayerWriter(int rootfs_fd, std::string_view label) : rootfs_fd_(rootfs_fd), label_(label) {}

  Result<LayerStats> Run(archive* in, archive* out, const Feed& feed) {
    for (;;) {
      archive_entry* entry = nullptr;
      int r = archive_read_next_header(in, &entry);
      if (r == ARCHIVE_EOF) break;
      if (r < ARCHIVE_WARN) {
        return Fail("", feed.error.empty() ? ArchiveError(in) : feed.error);
      }
      if (auto ok = Entry(in, out, entry, feed); !ok) return std::unexpected(ok.error());
    }
    // Directory modes and times are applied when the writer closes.
    if (archive_write_close(out) < ARCHIVE_WARN) return Fail("", ArchiveError(out));
    return stats_;
  }

 private:
  std::unexpected<Error> Fail(std::string_view entry, std::string_view why) const {
    if (entry.empty()) return Failure(fmt::format("unpack layer \"{}\": {}", label_, why));
    return Failure(fmt::format("unpack layer \"{}\": entry \"{}\": {}", label_, entry, why));
  }

  Result<void> Entry(archive* in, archive* out, archive_entry* entry, const Feed& feed) {
    // A copy: archive_entry_set_pathname below frees the string the entry hands out.
    const char* name_ptr = archive_entry_pathname(entry);
    if (name_ptr == nullptr) return Fail("", "an entry has no name");
    const std::string raw_name(name_ptr);
    const char* raw = raw_name.c_str();
    auto path = CleanRelativePath(raw);
    if (!path) return Fail(raw, path.error().Message() + ": it would escape the rootfs");
    if (path->empty()) return {};  // the root itself: its attributes are the store's

    auto [parent, name] = SplitParent(*path);
    if (name == kOpaqueWhiteout) return Check(raw, ApplyOpaque(rootfs_fd_, parent, written_));
    if (name.starts_with(kWhiteoutMetaPrefix)) return {};
    if (name.starts_with(kWhiteoutPrefix)) {
      std::string hidden(parent.empty() ? "" : std::string(parent) + "/");
      hidden += name.substr(kWhiteoutPrefix.size());
      return Check(raw, ApplyWhiteout(rootfs_fd_, hidden, written_));
    }

    if (const char* link = archive_entry_hardlink(entry)) {
      auto target = CleanRelativePath(link);
      if (!target || target->empty()) {
        return Fail(raw, fmt::format("hardlink target \"{}\": {}: it would escape the rootfs", link,
                                     target ? "the rootfs itself" : target.error().Message()));
      }
      if (auto ok = CheckParents(raw, *target); !ok) return ok;
      archive_entry_set_hardlink(entry, target->c_str());
    }
    bool is_dir = archive_entry_filetype(entry) == AE_IFDIR;
    if (auto ok = PrepareTarget(raw, *path, is_dir); !ok) return ok;
    archive_entry_set_pathname(entry, path->c_str());
    DropOverlayXattrs(entry);
    written_.Add(*path);

    mode_t type = archive_entry_filetype(entry);
    if (archive_write_header(out, entry) < ARCHIVE_WARN) {
      // Without CAP_MKNOD (rootless, user namespaces) device nodes cannot exist; runtimes
      // provide /dev anyway, so an image's device nodes are not worth failing over.
      if ((type == AE_IFCHR || type == AE_IFBLK) && archive_errno(out) == EPERM) {
        ++stats_.skipped_devices;
        return {};
      }
      return Fail(raw, ArchiveError(out));
    }
    if (type == AE_IFREG && archive_entry_hardlink(entry) == nullptr) {
      if (auto ok = CopyData(raw, in, out, feed); !ok) return ok;
    }
    if (archive_write_finish_entry(out) < ARCHIVE_WARN) return Fail(raw, ArchiveError(out));
    ++stats_.entries;
    return {};
  }

  Result<void> Check(const char* raw, Result<void> result) const {
    if (!result) return Fail(raw, result.error().Message());
    return {};
  }

  // Opens the directory `path` is in; nullopt when it does not exist yet (libarchive creates
  // it). Refuses a symlink on the way, which could lead out of the rootfs: libarchive's
  // SECURE_SYMLINKS refuses the same, but checking first gives a clearer message and also
  // covers hardlink targets.
  Result<std::optional<UniqueFd>> OpenParent(const char* raw, std::string_view path) const {
    std::string_view parent = SplitParent(path).first;
    auto fd = OpenBeneath(rootfs_fd_, parent, O_PATH | O_DIRECTORY);
    if (fd) return std::optional<UniqueFd>(*std::move(fd));
    if (fd.error() == ENOENT || fd.error() == ENOTDIR) return std::optional<UniqueFd>();
    if (fd.error() == ELOOP || fd.error() == EXDEV) {
      return Fail(
          raw,
          fmt::format("\"{}\" is or goes through a symlink; refusing to write through it", parent));
    }
    return Fail(raw, ErrnoMessage("open", parent, fd.error()));
  }

  Result<void> CheckParents(const char* raw, std::string_view path) const {
    auto fd = OpenParent(raw, path);
    if (!fd) return std::unexpected(fd.error());
    return {};
  }

  // A directory in the way of a non-directory is removed with its content (libarchive would
  // only rmdir it, which fails when it is not empty). Other replacements libarchive does.
  Result<void> PrepareTarget(const char* raw, std::string_view path, bool is_dir) const {
    auto parent = OpenParent(raw, path);
    if (!parent) return std::unexpected(parent.error());
    if (!parent->has_value() || is_dir) return {};
    std::string name(SplitParent(path).second);
    struct stat st {};
    int dir_fd = (*parent)->get();
    if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) {
      return {};
    }
    if (auto r = RemoveTreeAt(dir_fd, name, std::string(path)); !r)
      return Fail(raw, r.error().Message());
    return {};
  }

  Result<void> CopyData(const char* raw, archive* in, archive* out, const Feed& feed) {
    for (;;) {
      const void* buf = nullptr;
      size_t size = 0;
      la_int64_t offset = 0;
      int r = archive_read_data_block(in, &buf, &size, &offset);
      if (r == ARCHIVE_EOF) return {};
      if (r < ARCHIVE_WARN) {
        return Fail(raw, feed.error.empty() ? ArchiveError(in) : feed.error);
      }
      if (archive_write_data_block(out, buf, size, offset) < ARCHIVE_WARN) {
        return Fail(raw, ArchiveError(out));
      }
      stats_.bytes += size;
    }
  }

  int rootfs_fd_;
  std::string label_;
  LayerPaths written_;
  LayerStats stats_;
};

int ExtractFlags() {
  int flags = ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_XATTR |
              ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
              ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS;
  // Only root can give files away; elsewhere they belong to the caller (rootless use).
  if (geteuid() == 0) flags |= ARCHIVE_EXTRACT_OWNER;
  return flags;
}

}  // namespace

Result<LayerStats> ApplyLayer(BlobReader& layer, const std::filesystem::path& rootfs,
                              std::string_view label) {
  int fd = open(rootfs.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return SystemError("open rootfs", rootfs.string(), errno);
  UniqueFd rootfs_fd(fd);

  std::unique_ptr<archive, ReadFree> in(archive_read_new());
  archive_read_support_filter_all(in.get());
  archive_read_support_format_tar(in.get());
  Feed feed(layer);
  if (archive_read_open(in.get(), &feed, nullptr, &Feed::Read, nullptr) != ARCHIVE_OK) {
    return Failure(fmt::format("unpack layer \"{}\": {}", label,
                               feed.error.empty() ? ArchiveError(in.get()) : feed.error));
  }

  // No archive_write_disk_set_standard_lookup: ownership stays numeric. User names in a layer
  // are the image's, and mapping them through this host's /etc/passwd would be wrong.
  std::unique_ptr<archive, WriteFree> out(archive_write_disk_new());
  archive_write_disk_set_options(out.get(), ExtractFlags());

  auto cwd = WorkingDirectory::Enter(rootfs_fd.get(), rootfs.string());
  if (!cwd) return std::unexpected(cwd.error());
  LayerWriter writer(rootfs_fd.get(), label);
  return writer.Run(in.get(), out.get(), feed);
}

}  // namespace podlimits::image
