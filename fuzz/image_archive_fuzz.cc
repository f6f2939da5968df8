// libFuzzer target: arbitrary bytes as a whole image archive (an OCI archive or a docker
// archive, as `podlimits image load FILE` reads them: the outer tar, oci-layout, index.json or
// manifest.json, the manifests and configs they name, digest checks, the layers). Whatever the
// archive holds: no crash, nothing written outside the scratch directory, and a load that fails
// leaves the store as it was (no image, no half-unpacked directory).
#include <stdlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fuzz_scratch.h"
#include "image/store.h"

namespace fs = std::filesystem;
using namespace podlimits;

namespace {

const podlimits::fuzz::ScratchDir& Scratch() {
  static const podlimits::fuzz::ScratchDir dir("podlimits-archive-fuzz");
  return dir;
}

// Names in `dir`, for the before/after comparison.
std::size_t Entries(const fs::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& scratch = Scratch().path();
  const fs::path archive = scratch / "image.tar";
  const fs::path root = scratch / "store";
  {
    std::ofstream out(archive, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  std::error_code ec;
  fs::remove_all(root, ec);
  image::ImageStore store(root);
  auto loaded = store.Load(archive, "fuzz:latest");
  if (!loaded) {
    // Atomic: a failed load leaves no image behind.
    auto images = store.List();
    if (images && !images->empty()) std::abort();
  } else if (!fs::exists(loaded->rootfs)) {
    std::abort();
  }
  // Nothing beside what the fuzzer itself made: the canary, the archive, the store.
  if (Entries(scratch) != 3 && !(Entries(scratch) == 2 && !fs::exists(root))) std::abort();
  if (!Scratch().CanaryIntact()) std::abort();
  fs::remove_all(root, ec);
  return 0;
}
