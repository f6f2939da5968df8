// Unpacking one layer onto a rootfs being assembled.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/error.h"
#include "image/source.h"

namespace podlimits::image {

struct LayerStats {
  std::uint64_t entries = 0;          // entries written (whiteouts not counted)
  std::uint64_t bytes = 0;            // regular file content written
  std::uint64_t skipped_devices = 0;  // device nodes left out (no CAP_MKNOD)
};

// Applies the layer tar read from `layer` (plain, gzip or zstd: detected from its bytes) onto
// `rootfs`, which holds the layers below: whiteouts delete, opaque directories hide, other
// entries are created or replace what is there, directories merge.
//
// Untrusted content cannot write outside `rootfs`: entries with absolute names or ".." are
// rejected, as is writing through a symlink an earlier entry or layer left
// (ARCHIVE_EXTRACT_SECURE_*, plus openat2 RESOLVE_BENEATH checks of our own for whiteouts and
// hardlink targets). Modes, times and xattrs are kept; numeric ownership too when running as
// root (never mapped through this host's user names). Device nodes are skipped when the caller
// cannot create them.
//
// libarchive resolves entry names against the working directory, so this changes it for the
// duration of the call and restores it after: do not call it while another thread depends on
// the working directory. `label` names the layer in errors.
Result<LayerStats> ApplyLayer(BlobReader& layer, const std::filesystem::path& rootfs,
                              std::string_view label);

}  // namespace podlimits::image
