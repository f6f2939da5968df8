#include "api/name_generator.h"

namespace podlimits::api {
namespace {

constexpr std::size_t kRandomLength = 5;
// Like utilrand.String: each 63-bit draw is cut into 5-bit indexes (12 per draw); an index
// past the alphabet's 27 letters is skipped, so every letter is equally likely.
constexpr int kIndexBits = 5;
constexpr std::uint64_t kIndexMask = (1u << kIndexBits) - 1;
constexpr int kIndexesPerDraw = 63 / kIndexBits;

}  // namespace

NameGenerator::NameGenerator(std::uint64_t seed) : rng_(std::in_place, seed) {}

std::string NameGenerator::GenerateName(std::string_view base) {
  if (!rng_) rng_.emplace(std::random_device{}());
  std::mt19937_64& rng = *rng_;
  std::string name(base.substr(0, kMaxGeneratedNameLength));
  std::uint64_t draw = rng() >> 1;  // Int63
  int remaining = kIndexesPerDraw;
  for (std::size_t added = 0; added < kRandomLength;) {
    if (remaining == 0) {
      draw = rng() >> 1;
      remaining = kIndexesPerDraw;
    }
    std::size_t index = draw & kIndexMask;
    if (index < kGeneratedNameAlphabet.size()) {
      name += kGeneratedNameAlphabet[index];
      ++added;
    }
    draw >>= kIndexBits;
    --remaining;
  }
  return name;
}

bool GenerateObjectName(codec::Node& object, NameGenerator& generator) {
  codec::Node* meta = object.Find("metadata");
  if (!meta) return false;
  const codec::Node* name = meta->Find("name");
  if (name && !name->IsNull() && !(name->IsString() && name->scalar.empty())) return false;
  const codec::Node* generate = meta->Find("generateName");
  if (!generate || !generate->IsString() || generate->scalar.empty()) return false;
  std::string generated = generator.GenerateName(generate->scalar);
  meta->Set("name", codec::Node::String(std::move(generated)));
  return true;
}

}  // namespace podlimits::api
