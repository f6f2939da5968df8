// libFuzzer target: arbitrary bytes as an image layer (tar, gzip or zstd) applied onto a scratch
// rootfs. Whatever the archive holds, nothing may be written outside the rootfs: the scratch
// directory's sibling canary must stay untouched and nothing may appear beside the rootfs.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>

#include "fuzz_scratch.h"
#include "image/layer.h"

namespace fs = std::filesystem;
using namespace podlimits;

namespace {

class BytesReader : public image::BlobReader {
 public:
  BytesReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  Result<std::size_t> Read(std::span<std::byte> buf) override {
    const std::size_t n = std::min(buf.size(), size_ - at_);
    std::memcpy(buf.data(), data_ + at_, n);
    at_ += n;
    return n;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

const podlimits::fuzz::ScratchDir& Scratch() {
  static const podlimits::fuzz::ScratchDir dir("podlimits-layer-fuzz");
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path rootfs = Scratch().path() / "rootfs";
  std::error_code ec;
  fs::remove_all(rootfs, ec);
  fs::create_directories(rootfs);
  BytesReader reader(data, size);
  (void)image::ApplyLayer(reader, rootfs, "fuzz");
  // Nothing but the rootfs and the canary beside it, and the canary as it was.
  for (const auto& entry : fs::directory_iterator(Scratch().path())) {
    const auto name = entry.path().filename();
    if (name != "rootfs" && name != "canary") std::abort();
  }
  if (!Scratch().CanaryIntact()) std::abort();
  fs::permissions(rootfs, fs::perms::owner_all, fs::perm_options::add, ec);
  return 0;
}
