#include "image/store.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fs.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "image/lease.h"
#include "image/manifest.h"
#include "image/metadata.h"
#include "image/name.h"
#include "image/overlay.h"
#include "image/source.h"
#include "image/tags.h"
#include "image/unpack.h"

namespace podlimits::image {
namespace {

namespace fs = std::filesystem;

// Image rootfs keep their owners and setuid bits, so an image's setuid-root binary would be a
// root shell for any local user who could reach it: only root may enter the store (the
// <id> dirs are 0700 as well, from mkdtemp). Containers see the files through their overlay.
Result<void> EnsureRoot(const fs::path& root) {
  std::error_code ec;
  bool created = fs::create_directories(root, ec);
  if (ec) return Failure(fmt::format("mkdir \"{}\": {}", root.string(), ec.message()));
  if (created && chmod(root.c_str(), 0700) != 0) {
    return SystemError("chmod", root.string(), errno);
  }
  return {};
}

bool Exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

}  // namespace

Result<Image> ImageStore::Load(const fs::path& source_path, std::string_view name_text) {
  auto name = ParseImageName(name_text);
  if (!name) return std::unexpected(name.error());
  auto source = ImageSource::Open(source_path);
  if (!source) return std::unexpected(source.error());
  auto resolved = ResolveImage(**source, *name);
  if (!resolved) return std::unexpected(resolved.error());
  auto config = ParseImageConfig(resolved->config_json, resolved->config.path);
  if (!config) return std::unexpected(config.error());
  if (auto ok = EnsureRoot(root_); !ok) return std::unexpected(ok.error());

  const std::string id = resolved->config.digest.hex;
  const fs::path image_dir = root_ / id;
  // The unpack runs without the lock (it is the slow part); a concurrent `image rm` may then
  // delete an image this load found present, so the commit re-checks and, once, unpacks.
  for (int attempt = 0; attempt < 2; ++attempt) {
    fs::path staged;
    if (!Exists(image_dir / "image.json")) {
      auto unpacked = UnpackImage(**source, *resolved, *config, root_);
      if (!unpacked) return std::unexpected(unpacked.error());
      staged = *unpacked;
    } else if (auto ok = VerifyLayers(**source, *resolved); !ok) {
      return std::unexpected(ok.error());
    }
    auto lock = StoreLock::Acquire(root_);
    if (!lock) {
      if (!staged.empty()) (void)RemoveTree(staged);
      return std::unexpected(lock.error());
    }
    if (Exists(image_dir / "image.json")) {
      if (!staged.empty()) (void)RemoveTree(staged);  // loaded meanwhile: same content
    } else if (!staged.empty()) {
      if (rename(staged.c_str(), image_dir.c_str()) != 0) {
        int err = errno;
        (void)RemoveTree(staged);
        return SystemError("rename", image_dir.string(), err);
      }
    } else {
      continue;  // removed after we looked: unpack after all
    }
    auto tags = ImageTags::Read(TagsFile());
    if (!tags) return std::unexpected(tags.error());
    std::string previous = tags->ids.contains(name->String()) ? tags->ids[name->String()] : "";
    tags->ids[name->String()] = id;
    if (auto ok = tags->Write(TagsFile()); !ok) return std::unexpected(ok.error());
    // The name moved off an image nothing else names: that image goes, as with `docker load`
    // leaving it dangling, except that podlimits keeps no dangling images. One in use stays.
    if (!previous.empty() && previous != id && tags->References(previous) == 0) {
      auto users = OverlaysUsingLowerDir(root_ / previous / "rootfs");
      auto leased = ImageLeased(root_ / previous);
      if (users && users->empty() && leased && !*leased) (void)RemoveTree(root_ / previous);
    }
    return Read(name->String(), id);
  }
  return Failure(
      fmt::format("load image \"{}\": the store kept changing; try again", source_path.string()));
}

Result<std::vector<Image>> ImageStore::List() const {
  auto tags = ImageTags::Read(TagsFile());
  if (!tags) return std::unexpected(tags.error());
  std::vector<Image> out;
  for (const auto& [name, id] : tags->ids) {
    auto image = Read(name, id);
    if (!image) return std::unexpected(image.error());
    out.push_back(*std::move(image));
  }
  return out;
}

Result<Image> ImageStore::Find(std::string_view name_text) const {
  auto name = ParseImageName(name_text);
  if (!name) return std::unexpected(name.error());
  auto tags = ImageTags::Read(TagsFile());
  if (!tags) return std::unexpected(tags.error());
  auto it = tags->ids.find(name->String());
  if (it == tags->ids.end()) {
    // The command that loads into this store: a node's data directory holds its store as
    // DIR/images (`podlimits serve --data-dir DIR`, the default DIR /var/lib/podlimits).
    const std::string store_flag =
        root_.filename() == "images"
            ? fmt::format("--data-dir {}", root_.parent_path().string())
            : fmt::format("--image-root {}", root_.string());
    return Failure(
        fmt::format("image \"{}\" not found in \"{}\" (load it with "
                    "`podlimits image {} load SOURCE --name {}`)",
                    name->String(), root_.string(), store_flag, name->String()));
  }
  return Read(it->first, it->second);
}

Result<void> ImageStore::Remove(std::string_view name_text) {
  auto name = ParseImageName(name_text);
  if (!name) return std::unexpected(name.error());
  if (!Exists(TagsFile())) {
    return Failure(fmt::format("image \"{}\" not found in \"{}\"", name->String(), root_.string()));
  }
  auto lock = StoreLock::Acquire(root_);
  if (!lock) return std::unexpected(lock.error());
  auto tags = ImageTags::Read(TagsFile());
  if (!tags) return std::unexpected(tags.error());
  auto it = tags->ids.find(name->String());
  if (it == tags->ids.end()) {
    return Failure(fmt::format("image \"{}\" not found in \"{}\"", name->String(), root_.string()));
  }
  const std::string id = it->second;
  const bool last = tags->References(id) == 1;
  if (last) {
    auto users = OverlaysUsingLowerDir(root_ / id / "rootfs");
    if (!users) return std::unexpected(users.error());
    auto use = ImageUse(root_ / id);
    if (!use) return std::unexpected(use.error());
    if (*use) return Failure(fmt::format("remove image \"{}\": {}", name->String(), **use));
    if (!users->empty()) {
      std::vector<std::string> paths;
      for (const auto& p : *users) paths.push_back(p.string());
      return Failure(
          fmt::format("remove image \"{}\": in use by the container rootfs "
                      "mounted at {}",
                      name->String(), fmt::join(paths, ", ")));
    }
  }
  tags->ids.erase(it);
  if (auto ok = tags->Write(TagsFile()); !ok) return ok;
  if (!last) return {};
  // Rename first so a half-deleted image is never visible under its id.
  fs::path doomed = root_ / fmt::format(".remove-{}-{}", id, getpid());
  if (rename((root_ / id).c_str(), doomed.c_str()) != 0) {
    if (errno == ENOENT) return {};
    return SystemError("rename", (root_ / id).string(), errno);
  }
  return RemoveTree(doomed);
}

Result<Image> ImageStore::Read(const std::string& name, const std::string& id) const {
  fs::path file = root_ / id / "image.json";
  auto text = ReadSmallFile(file, 16 << 20);
  if (!text) return std::unexpected(text.error());
  auto m = DecodeImageMetadata(*text, file.string());
  if (!m) return std::unexpected(m.error());
  return Image{.name = name,
               .id = id,
               .rootfs = root_ / id / "rootfs",
               .config = m->config,
               .architecture = m->architecture,
               .os = m->os,
               .created = m->created,
               .format = m->format,
               .size = m->size};
}

}  // namespace podlimits::image
