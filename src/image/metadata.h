// What the store records about one image, in <root>/<id>/image.json: the config a container
// needs (so running never re-reads the source) and a few facts for `image ls`.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "image/config.h"

namespace podlimits::image {

struct ImageMetadata {
  std::string id;               // hex of the config digest
  std::string config_digest;    // "sha256:<id>"
  std::string manifest_digest;  // "" for docker archives
  std::string format;           // "oci-layout" or "docker-archive"
  std::string architecture, os, created;
  std::vector<std::string> layers;  // layer digests, lowest first
  std::uint64_t size = 0;           // bytes of file content in the rootfs
  ImageConfig config;

  bool operator==(const ImageMetadata&) const = default;
};

std::string EncodeImageMetadata(const ImageMetadata& m);
Result<ImageMetadata> DecodeImageMetadata(std::string_view json, std::string_view path);

}  // namespace podlimits::image
