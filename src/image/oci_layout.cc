// OCI image layout (image-spec image-layout.md): oci-layout, index.json, blobs/<alg>/<hex>.
// index.json may list several manifests, nested indexes (multi-platform images) and
// non-image artifacts; the image for this machine's platform is chosen.
#include <algorithm>

#include "base/error.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "image/json.h"
#include "image/manifest.h"

namespace podlimits::image {
namespace {

constexpr std::string_view kOciIndex = "application/vnd.oci.image.index.v1+json";
constexpr std::string_view kDockerList =
    "application/vnd.docker.distribution.manifest.list.v2+json";
constexpr std::string_view kOciManifest = "application/vnd.oci.image.manifest.v1+json";
constexpr std::string_view kDockerManifest = "application/vnd.docker.distribution.manifest.v2+json";
constexpr int kMaxIndexDepth = 4;

struct Descriptor {
  std::string media_type;
  BlobRef blob;
  std::string os, architecture;  // from "platform", "" when absent
  std::string ref_name;          // org.opencontainers.image.ref.name or io.containerd.image.name
};

Result<Descriptor> ParseDescriptor(const rapidjson::Value& v, std::string_view what,
                                   const JsonSource& src) {
  if (!v.IsObject()) return Failure(src.Error("a descriptor must be an object"));
  Descriptor d;
  auto media_type = OptionalString(v, "mediaType", src);
  auto digest_text = RequiredString(v, "digest", src);
  if (!media_type) return std::unexpected(media_type.error());
  if (!digest_text) return std::unexpected(digest_text.error());
  auto digest = ParseDigest(*digest_text);
  if (!digest) return Failure(src.Error(digest.error().Message()));
  const rapidjson::Value* size = FindMember(v, "size");
  if (size == nullptr || !size->IsUint64()) {
    return Failure(src.Error(
        fmt::format("descriptor {}: \"size\" must be a non-negative integer", digest->String())));
  }
  d.media_type = *media_type;
  d.blob = BlobRef{std::string(what), digest->BlobPath(), *digest, size->GetUint64()};
  if (const rapidjson::Value* platform = FindMember(v, "platform")) {
    auto os = OptionalString(*platform, "os", src);
    auto arch = OptionalString(*platform, "architecture", src);
    if (!os) return std::unexpected(os.error());
    if (!arch) return std::unexpected(arch.error());
    d.os = *os;
    d.architecture = *arch;
  }
  if (const rapidjson::Value* annotations = FindMember(v, "annotations")) {
    for (const char* key : {"org.opencontainers.image.ref.name", "io.containerd.image.name"}) {
      auto ref = OptionalString(*annotations, key, src);
      if (!ref) return std::unexpected(ref.error());
      if (!ref->empty() && d.ref_name.empty()) d.ref_name = *ref;
    }
  }
  return d;
}

bool PlatformMatches(const Descriptor& d) {
  // A descriptor without a platform is taken to be for any platform (single-image layouts
  // written by tools that omit it).
  return (d.os.empty() || d.os == "linux") &&
         (d.architecture.empty() || d.architecture == HostArchitecture());
}

class ManifestCollector {
 public:
  explicit ManifestCollector(ImageSource& source) : source_(source) {}

  // Adds the image manifests of one index (recursing into nested ones).
  Result<void> Collect(const rapidjson::Value& index, const JsonSource& src,
                       const std::string& inherited_ref, int depth) {
    const rapidjson::Value* manifests = FindMember(index, "manifests");
    if (manifests == nullptr || !manifests->IsArray()) {
      return Failure(src.Error("\"manifests\" must be an array"));
    }
    for (const auto& item : manifests->GetArray()) {
      auto d = ParseDescriptor(item, "manifest", src);
      if (!d) return std::unexpected(d.error());
      if (d->ref_name.empty()) d->ref_name = inherited_ref;
      if (d->media_type == kOciIndex || d->media_type == kDockerList) {
        if (auto r = CollectNested(*d, depth); !r) return r;
      } else if (d->media_type == kOciManifest || d->media_type == kDockerManifest) {
        if (PlatformMatches(*d)) {
          found.push_back(*std::move(d));
        } else {
          ++skipped;
        }
      }
      // Anything else (signatures, SBOMs, other artifacts) is not an image; ignore it.
    }
    return {};
  }

  std::vector<Descriptor> found;
  int skipped = 0;

 private:
  Result<void> CollectNested(Descriptor d, int depth) {
    if (depth >= kMaxIndexDepth) {
      return Failure(
          fmt::format("read index \"{}\": indexes nested deeper than {}", d.blob.path, depth));
    }
    d.blob.what = "index";
    auto bytes = ReadVerified(source_, d.blob, kMaxJsonBlobSize);
    if (!bytes) return std::unexpected(bytes.error());
    JsonSource src{"index", d.blob.path};
    auto doc = ParseJsonDocument(*bytes, src);
    if (!doc) return std::unexpected(doc.error());
    return Collect(*doc, src, d.ref_name, depth + 1);
  }

  ImageSource& source_;
};

bool RefMatches(const std::string& ref, const ImageName& name) {
  if (ref.empty()) return false;
  if (ref == name.tag || ref == name.String()) return true;
  auto parsed = ParseImageName(ref);
  return parsed && *parsed == name;
}

Result<Descriptor> ChooseManifest(const ManifestCollector& c, const ImageName& name) {
  if (c.found.size() == 1) return c.found.front();
  if (c.found.empty()) {
    return Failure(
        fmt::format("index.json lists no image for linux/{} ({} for other "
                    "platforms)",
                    HostArchitecture(), c.skipped));
  }
  std::vector<const Descriptor*> matching;
  std::vector<std::string> refs;
  for (const auto& d : c.found) {
    if (RefMatches(d.ref_name, name)) matching.push_back(&d);
    refs.push_back(d.ref_name.empty() ? d.blob.digest.String() : d.ref_name);
  }
  if (matching.size() == 1) return *matching.front();
  return Failure(fmt::format(
      "index.json lists {} images for linux/{} ({}); none is uniquely named \"{}\" or \"{}\"",
      c.found.size(), HostArchitecture(), fmt::join(refs, ", "), name.tag, name.String()));
}

Result<void> CheckLayoutVersion(ImageSource& source) {
  auto reader = source.Open("oci-layout", "image layout file");
  if (!reader) return std::unexpected(reader.error());
  auto bytes = ReadAll(**reader, 4096, "image layout file", "oci-layout");
  if (!bytes) return std::unexpected(bytes.error());
  JsonSource src{"image layout file", "oci-layout"};
  auto doc = ParseJsonDocument(*bytes, src);
  if (!doc) return std::unexpected(doc.error());
  auto version = RequiredString(*doc, "imageLayoutVersion", src);
  if (!version) return std::unexpected(version.error());
  if (!version->starts_with("1.")) {
    return Failure(src.Error(fmt::format("unsupported imageLayoutVersion \"{}\"", *version)));
  }
  return {};
}

bool IsLayerMediaType(std::string_view type) {
  return type.starts_with("application/vnd.oci.image.layer.") ||
         type.starts_with("application/vnd.docker.image.rootfs.");
}

}  // namespace

Result<ResolvedImage> ResolveOciLayout(ImageSource& source, const ImageName& name) {
  if (auto ok = CheckLayoutVersion(source); !ok) return std::unexpected(ok.error());
  auto index_reader = source.Open("index.json", "index");
  if (!index_reader) return std::unexpected(index_reader.error());
  auto index_bytes = ReadAll(**index_reader, kMaxJsonBlobSize, "index", "index.json");
  if (!index_bytes) return std::unexpected(index_bytes.error());
  JsonSource index_src{"index", "index.json"};
  auto index = ParseJsonDocument(*index_bytes, index_src);
  if (!index) return std::unexpected(index.error());

  ManifestCollector collector(source);
  if (auto ok = collector.Collect(*index, index_src, "", 0); !ok)
    return std::unexpected(ok.error());
  auto chosen = ChooseManifest(collector, name);
  if (!chosen) {
    return Failure(
        fmt::format("load image \"{}\": {}", source.path().string(), chosen.error().Message()));
  }

  auto manifest_bytes = ReadVerified(source, chosen->blob, kMaxJsonBlobSize);
  if (!manifest_bytes) return std::unexpected(manifest_bytes.error());
  JsonSource src{"manifest", chosen->blob.path};
  auto manifest = ParseJsonDocument(*manifest_bytes, src);
  if (!manifest) return std::unexpected(manifest.error());

  ResolvedImage out;
  out.format = ImageFormat::kOciLayout;
  out.manifest_digest = chosen->blob.digest;
  const rapidjson::Value* config = FindMember(*manifest, "config");
  if (config == nullptr) return Failure(src.Error("\"config\" is missing"));
  auto config_desc = ParseDescriptor(*config, "config", src);
  if (!config_desc) return std::unexpected(config_desc.error());
  out.config = config_desc->blob;
  auto config_bytes = ReadVerified(source, out.config, kMaxJsonBlobSize);
  if (!config_bytes) return std::unexpected(config_bytes.error());
  out.config_json = *std::move(config_bytes);

  const rapidjson::Value* layers = FindMember(*manifest, "layers");
  if (layers == nullptr || !layers->IsArray()) {
    return Failure(src.Error("\"layers\" must be an array"));
  }
  for (const auto& item : layers->GetArray()) {
    auto layer = ParseDescriptor(item, "layer", src);
    if (!layer) return std::unexpected(layer.error());
    // Encrypted layers need keys podlimits does not have; anything not a layer is not
    // something to unpack. Compression (none, gzip, zstd) is detected from the bytes.
    if (!IsLayerMediaType(layer->media_type) || layer->media_type.ends_with("+encrypted")) {
      return Failure(src.Error(fmt::format("layer {}: unsupported media type \"{}\"",
                                           layer->blob.digest.String(), layer->media_type)));
    }
    out.layers.push_back(layer->blob);
  }
  return out;
}

}  // namespace podlimits::image
