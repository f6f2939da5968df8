#include "image/verify.h"

#include "base/error.h"
#include "fmt/format.h"

namespace podlimits::image {

VerifyingReader::VerifyingReader(std::unique_ptr<BlobReader> inner, BlobRef ref)
    : inner_(std::move(inner)), ref_(std::move(ref)), hasher_(ref_.digest.algorithm) {}

Result<std::size_t> VerifyingReader::Read(std::span<std::byte> buf) {
  auto n = inner_->Read(buf);
  if (!n) return n;
  hasher_.Update(buf.first(*n));
  count_ += *n;
  // Stop early on an oversized blob instead of reading a hostile stream to its end.
  if (ref_.size && count_ > *ref_.size) {
    return Failure(fmt::format("verify {} \"{}\": larger than the {} bytes declared", ref_.what,
                               ref_.path, *ref_.size));
  }
  return n;
}

Result<void> VerifyingReader::Finish() {
  std::byte buf[65536];
  for (;;) {
    auto n = Read(buf);
    if (!n) return std::unexpected(n.error());
    if (*n == 0) break;
  }
  if (ref_.size && count_ != *ref_.size) {
    return Failure(fmt::format("verify {} \"{}\": size is {} bytes, {} declared", ref_.what,
                               ref_.path, count_, *ref_.size));
  }
  Digest got = hasher_.Finish();
  if (got != ref_.digest) {
    return Failure(fmt::format("verify {} \"{}\": digest mismatch: want {}, content is {}",
                               ref_.what, ref_.path, ref_.digest.String(), got.String()));
  }
  return {};
}

Result<std::unique_ptr<VerifyingReader>> OpenVerified(ImageSource& source, const BlobRef& ref) {
  auto reader = source.Open(ref.path, ref.what);
  if (!reader) return std::unexpected(reader.error());
  return std::make_unique<VerifyingReader>(std::move(*reader), ref);
}

Result<std::string> ReadVerified(ImageSource& source, const BlobRef& ref, std::size_t limit) {
  auto reader = OpenVerified(source, ref);
  if (!reader) return std::unexpected(reader.error());
  auto bytes = ReadAll(**reader, limit, ref.what, ref.path);
  if (!bytes) return bytes;
  if (auto ok = (*reader)->Finish(); !ok) return std::unexpected(ok.error());
  return bytes;
}

}  // namespace podlimits::image
