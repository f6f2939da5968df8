// Unpacking a resolved image into a fresh staging directory of the store.
#pragma once

#include <expected>
#include <filesystem>
#include <string>

#include "base/error.h"
#include "image/config.h"
#include "image/manifest.h"
#include "image/source.h"

namespace podlimits::image {

// Creates <store_root>/.load-XXXXXX holding rootfs/ (every layer applied in order, each
// verified against its digest) and image.json, and returns it for the caller to rename into
// place. On failure it is removed again: nothing is left behind.
Result<std::filesystem::path> UnpackImage(ImageSource& source, const ResolvedImage& image,
                                          const ParsedImageConfig& config,
                                          const std::filesystem::path& store_root);

// Reads every layer of `image` through its digest check without unpacking it: a load of an
// image the store already holds still fails on a corrupt or incomplete source.
Result<void> VerifyLayers(ImageSource& source, const ResolvedImage& image);

}  // namespace podlimits::image
