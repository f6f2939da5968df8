// Docker archives (`docker save`, skopeo/podman docker-archive): manifest.json lists, per
// image, its config file, RepoTags and layer tars. Nothing there carries a digest, so each
// blob is verified through its name where the name is a digest ("<hex>.json",
// "blobs/sha256/<hex>") and a layer otherwise through the config's rootfs.diff_ids (docker
// stores layers uncompressed, so the stored bytes are what diff_ids hash).
#include "base/error.h"
#include "base/fs.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "image/config.h"
#include "image/json.h"
#include "image/manifest.h"

namespace podlimits::image {
namespace {

// "blobs/sha256/<hex>" or ".../<hex>.json" / ".../<hex>.tar" name their content's digest.
std::optional<Digest> DigestFromName(std::string_view path) {
  auto [parent, base] = SplitParent(path);
  auto [grand, algorithm] = SplitParent(parent);
  if (SplitParent(grand).second == "blobs" && IsDigestHex(algorithm, base)) {
    return Digest{std::string(algorithm), std::string(base)};
  }
  for (std::string_view ext : {".json", ".tar"}) {
    if (base.ends_with(ext)) {
      std::string_view stem = base.substr(0, base.size() - ext.size());
      if (IsDigestHex("sha256", stem)) return Digest{"sha256", std::string(stem)};
    }
  }
  return std::nullopt;
}

struct Entry {
  std::string config;
  std::vector<std::string> repo_tags;
  std::vector<std::string> layers;
};

Result<std::vector<Entry>> ReadManifestJson(ImageSource& source) {
  auto reader = source.Open("manifest.json", "manifest");
  if (!reader) return std::unexpected(reader.error());
  auto bytes = ReadAll(**reader, kMaxJsonBlobSize, "manifest", "manifest.json");
  if (!bytes) return std::unexpected(bytes.error());
  JsonSource src{"manifest", "manifest.json"};
  auto doc = ParseJsonDocument(*bytes, src);
  if (!doc) return std::unexpected(doc.error());
  if (!doc->IsArray()) return Failure(src.Error("not a JSON array"));
  std::vector<Entry> out;
  for (const auto& item : doc->GetArray()) {
    if (!item.IsObject()) return Failure(src.Error("entries must be objects"));
    auto config = RequiredString(item, "Config", src);
    auto tags = OptionalStrings(item, "RepoTags", src);
    auto layers = OptionalStrings(item, "Layers", src);
    if (!config) return std::unexpected(config.error());
    if (!tags) return std::unexpected(tags.error());
    if (!layers) return std::unexpected(layers.error());
    out.push_back(Entry{*std::move(config), *std::move(tags), *std::move(layers)});
  }
  return out;
}

bool TagMatches(const std::string& tag, const ImageName& name) {
  if (tag == name.String()) return true;
  auto parsed = ParseImageName(tag);
  return parsed && *parsed == name;
}

Result<Entry> ChooseEntry(std::vector<Entry> entries, const ImageName& name) {
  if (entries.size() == 1) return std::move(entries.front());
  if (entries.empty()) return Failure("manifest.json lists no images");
  std::vector<Entry*> matching;
  std::vector<std::string> all;
  for (auto& e : entries) {
    bool match = false;
    for (const auto& tag : e.repo_tags) {
      match = match || TagMatches(tag, name);
      all.push_back(tag);
    }
    if (match) matching.push_back(&e);
  }
  if (matching.size() == 1) return std::move(*matching.front());
  return Failure(
      fmt::format("manifest.json lists {} images (tags: {}); none is uniquely tagged \"{}\"",
                  entries.size(), fmt::join(all, ", "), name.String()));
}

}  // namespace

Result<ResolvedImage> ResolveDockerArchive(ImageSource& source, const ImageName& name) {
  auto entries = ReadManifestJson(source);
  if (!entries) return std::unexpected(entries.error());
  auto entry = ChooseEntry(*std::move(entries), name);
  if (!entry) {
    return Failure(
        fmt::format("load image \"{}\": {}", source.path().string(), entry.error().Message()));
  }

  ResolvedImage out;
  out.format = ImageFormat::kDockerArchive;
  auto config_digest = DigestFromName(entry->config);
  if (!config_digest) {
    return Failure(fmt::format(
        "verify config \"{}\": its name is not a digest, so its content cannot be verified",
        entry->config));
  }
  out.config = BlobRef{"config", entry->config, *config_digest, std::nullopt};
  auto config_bytes = ReadVerified(source, out.config, kMaxJsonBlobSize);
  if (!config_bytes) return std::unexpected(config_bytes.error());
  out.config_json = *std::move(config_bytes);
  auto config = ParseImageConfig(out.config_json, entry->config);
  if (!config) return std::unexpected(config.error());
  if (config->diff_ids.size() != entry->layers.size()) {
    return Failure(fmt::format(
        "load image \"{}\": manifest.json lists {} layers but config \"{}\" has {} diff_ids",
        source.path().string(), entry->layers.size(), entry->config, config->diff_ids.size()));
  }
  for (std::size_t i = 0; i < entry->layers.size(); ++i) {
    const std::string& path = entry->layers[i];
    Digest want = DigestFromName(path).value_or(config->diff_ids[i]);
    out.layers.push_back(BlobRef{"layer", path, want, std::nullopt});
  }
  return out;
}

}  // namespace podlimits::image
