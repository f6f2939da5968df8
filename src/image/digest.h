// Content digests as the OCI image spec writes them ("sha256:<64 hex>"), and hashing.
#pragma once

#include <cstddef>
#include <expected>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/error.h"

namespace podlimits::image {

struct Digest {
  std::string algorithm;  // "sha256" or "sha512"
  std::string hex;        // lowercase, of the algorithm's length

  std::string String() const { return algorithm + ":" + hex; }
  // Where an OCI image layout stores the blob: "blobs/sha256/<hex>".
  std::string BlobPath() const { return "blobs/" + algorithm + "/" + hex; }
  bool operator==(const Digest&) const = default;
};

// Parses "sha256:<hex>" strictly. The hex part becomes a file name, so anything but the exact
// lowercase length of a supported algorithm is rejected (no path tricks through a digest).
Result<Digest> ParseDigest(std::string_view text);

// True if `text` is a lowercase hex string of the length `algorithm` produces.
bool IsDigestHex(std::string_view algorithm, std::string_view text);

// Incremental hashing through OpenSSL's EVP interface.
class DigestHasher {
 public:
  // `algorithm` must be one ParseDigest accepts.
  explicit DigestHasher(std::string_view algorithm);
  ~DigestHasher();
  DigestHasher(const DigestHasher&) = delete;
  DigestHasher& operator=(const DigestHasher&) = delete;

  void Update(std::span<const std::byte> data);
  void Update(std::string_view data);
  Digest Finish();

 private:
  std::string algorithm_;
  struct Context;
  std::unique_ptr<Context> ctx_;
};

Digest ComputeDigest(std::string_view algorithm, std::string_view data);

}  // namespace podlimits::image
