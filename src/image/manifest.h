// From an image source to the list of verified-on-read blobs that make one image: the format
// is detected, the image to load is chosen, and every reference carries the digest it must
// match. Only the index.json of an OCI layout and the manifest.json of a docker archive are
// trusted as they are; everything they reference is content-addressed.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "image/name.h"
#include "image/source.h"
#include "image/verify.h"

namespace podlimits::image {

enum class ImageFormat { kOciLayout, kDockerArchive };

// "oci-layout" or "docker-archive".
std::string_view ImageFormatName(ImageFormat format);

struct ResolvedImage {
  ImageFormat format = ImageFormat::kOciLayout;
  std::optional<Digest> manifest_digest;  // OCI only: docker archives have no manifest blob
  BlobRef config;                         // the config blob, already read and verified:
  std::string config_json;                //   its bytes
  std::vector<BlobRef> layers;            // lowest layer first; verified when applied
};

// Detects the format: a source with "oci-layout" and "index.json" is an OCI image layout
// (preferred: docker 25+ writes both), one with "manifest.json" a docker archive. `name` picks
// the image when the source holds several (by ref name annotation or RepoTags).
Result<ResolvedImage> ResolveImage(ImageSource& source, const ImageName& name);

Result<ResolvedImage> ResolveOciLayout(ImageSource& source, const ImageName& name);
Result<ResolvedImage> ResolveDockerArchive(ImageSource& source, const ImageName& name);

// This machine's architecture as images name it (Go's GOARCH: "amd64", "arm64", ...).
std::string_view HostArchitecture();

// Manifests and configs larger than this are refused.
inline constexpr std::size_t kMaxJsonBlobSize = 8 << 20;

}  // namespace podlimits::image
