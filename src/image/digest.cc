#include "image/digest.h"

#include <openssl/evp.h>

#include <cstdlib>

#include "base/error.h"
#include "fmt/format.h"

namespace podlimits::image {
namespace {

const EVP_MD* Algorithm(std::string_view name) {
  if (name == "sha256") return EVP_sha256();
  if (name == "sha512") return EVP_sha512();
  return nullptr;
}

std::size_t HexLength(std::string_view algorithm) {
  if (algorithm == "sha256") return 64;
  if (algorithm == "sha512") return 128;
  return 0;
}

}  // namespace

bool IsDigestHex(std::string_view algorithm, std::string_view text) {
  std::size_t want = HexLength(algorithm);
  if (want == 0 || text.size() != want) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Result<Digest> ParseDigest(std::string_view text) {
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return Failure(fmt::format("invalid digest \"{}\": want ALGORITHM:HEX", text));
  }
  std::string_view algorithm = text.substr(0, colon);
  std::string_view hex = text.substr(colon + 1);
  if (HexLength(algorithm) == 0) {
    return Failure(
        fmt::format("invalid digest \"{}\": unsupported algorithm \"{}\"", text, algorithm));
  }
  if (!IsDigestHex(algorithm, hex)) {
    return Failure(fmt::format("invalid digest \"{}\": want {} lowercase hex digits", text,
                               HexLength(algorithm)));
  }
  return Digest{std::string(algorithm), std::string(hex)};
}

struct DigestHasher::Context {
  EVP_MD_CTX* md = nullptr;
  ~Context() { EVP_MD_CTX_free(md); }
};

DigestHasher::DigestHasher(std::string_view algorithm)
    : algorithm_(algorithm), ctx_(std::make_unique<Context>()) {
  const EVP_MD* md = Algorithm(algorithm);
  ctx_->md = EVP_MD_CTX_new();
  // Only allocation failure or an algorithm ParseDigest would have refused can fail here;
  // neither is a user error, so stop rather than hash nothing.
  if (md == nullptr || ctx_->md == nullptr || EVP_DigestInit_ex(ctx_->md, md, nullptr) != 1) {
    std::abort();
  }
}

DigestHasher::~DigestHasher() = default;

void DigestHasher::Update(std::span<const std::byte> data) {
  if (!data.empty()) EVP_DigestUpdate(ctx_->md, data.data(), data.size());
}

void DigestHasher::Update(std::string_view data) {
  if (!data.empty()) EVP_DigestUpdate(ctx_->md, data.data(), data.size());
}

Digest DigestHasher::Finish() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx_->md, out, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    hex += kHex[out[i] >> 4];
    hex += kHex[out[i] & 0xf];
  }
  return Digest{algorithm_, std::move(hex)};
}

Digest ComputeDigest(std::string_view algorithm, std::string_view data) {
  DigestHasher hasher(algorithm);
  hasher.Update(data);
  return hasher.Finish();
}

}  // namespace podlimits::image
