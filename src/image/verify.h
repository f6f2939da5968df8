// Content verification: every blob is checked against the digest (and size) its referrer
// declares, while it is being read, so a layer is read only once.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "image/digest.h"
#include "image/source.h"

namespace podlimits::image {

// What a referrer says a blob is.
struct BlobRef {
  std::string what;  // "manifest", "config", "layer", ... for error messages
  std::string path;  // inside the source, e.g. "blobs/sha256/<hex>"
  Digest digest;
  std::optional<std::uint64_t> size;  // absent where the format does not record one
};

// Passes a blob through while hashing and counting it.
class VerifyingReader : public BlobReader {
 public:
  VerifyingReader(std::unique_ptr<BlobReader> inner, BlobRef ref);

  Result<std::size_t> Read(std::span<std::byte> buf) override;

  // Reads what the consumer left (a tar reader stops at the end-of-archive marker, before
  // the padding) and checks the digest and size of the whole blob.
  Result<void> Finish();

 private:
  std::unique_ptr<BlobReader> inner_;
  BlobRef ref_;
  DigestHasher hasher_;
  std::uint64_t count_ = 0;
};

// Opens `ref.path` in `source` and returns a verifying reader over it.
Result<std::unique_ptr<VerifyingReader>> OpenVerified(ImageSource& source, const BlobRef& ref);

// Reads a small blob (at most `limit` bytes) and verifies it.
Result<std::string> ReadVerified(ImageSource& source, const BlobRef& ref, std::size_t limit);

}  // namespace podlimits::image
