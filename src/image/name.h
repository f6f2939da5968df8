// Image names in the store: docker's reference grammar without digests, ":latest" by default.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "base/error.h"

namespace podlimits::image {

struct ImageName {
  std::string repository;  // "busybox", "registry.local:5000/team/app"
  std::string tag;         // "latest" when the name had none

  std::string String() const { return repository + ":" + tag; }
  bool operator==(const ImageName&) const = default;
};

// Parses NAME[:TAG] as docker does (distribution/reference): an optional registry host[:port],
// lowercase path components separated by '/', and a tag of at most 128 word characters, dots
// and dashes. A name without a tag gets "latest". Digest references (NAME@sha256:...) are not
// supported by this store and rejected with a message that says so.
Result<ImageName> ParseImageName(std::string_view text);

}  // namespace podlimits::image
