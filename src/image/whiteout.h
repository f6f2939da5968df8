// Whiteouts (OCI image-spec layer.md): in a layer, `.wh.NAME` deletes NAME of the layers below
// and `.wh..wh..opq` in a directory hides everything the layers below put in it. Neither ever
// touches what the same layer writes, whatever the order of the entries in the tar, so the
// paths the current layer has written are tracked.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <unordered_set>

#include "base/error.h"

namespace podlimits::image {

inline constexpr std::string_view kWhiteoutPrefix = ".wh.";
inline constexpr std::string_view kOpaqueWhiteout = ".wh..wh..opq";
// Other ".wh..wh." names are aufs bookkeeping (e.g. ".wh..wh.plnk"), never content.
inline constexpr std::string_view kWhiteoutMetaPrefix = ".wh..wh.";

// The paths the layer being applied has written, with their ancestors (a tar may create
// "a/b/c" without an entry for "a/b").
class LayerPaths {
 public:
  void Add(std::string_view path);
  bool Contains(std::string_view path) const { return paths_.contains(std::string(path)); }

 private:
  std::unordered_set<std::string> paths_;
};

// `.wh.NAME` found in this layer: removes `hidden` (the cleaned path of NAME) as the lower
// layers left it. If this layer wrote `hidden` as a directory, only the lower content inside
// it goes. Fails on a symlink on the way (it could point out of the rootfs).
Result<void> ApplyWhiteout(int rootfs_fd, std::string_view hidden, const LayerPaths& written);

// `.wh..wh..opq` found in directory `dir` (cleaned, "" for the root): removes what the lower
// layers put inside `dir`, keeping what this layer wrote.
Result<void> ApplyOpaque(int rootfs_fd, std::string_view dir, const LayerPaths& written);

}  // namespace podlimits::image
