// metadata.generateName → metadata.name, as kube-apiserver's registry picks the name of an
// object created with only a generateName (k8s.io/apiserver/pkg/storage/names
// SimpleNameGenerator over k8s.io/apimachinery/pkg/util/rand String).
//
// The registry does it after mutating admission and before validation and validating
// admission, so every validation and admission message names the object by its generated name
// (`pods "web-x7k2p" is forbidden: ...`).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "codec/node.h"

namespace podlimits::api {

// maxGeneratedNameLength: a base longer than this is cut, so that base + suffix fits 63.
inline constexpr std::size_t kMaxGeneratedNameLength = 63 - 5;
// utilrand's alphabet: no vowels, nor the digits that read as vowels, so no words form.
inline constexpr std::string_view kGeneratedNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

class NameGenerator {
 public:
  // Random names, seeded from std::random_device at the first name. Not before: an admission
  // chain makes a generator for every object it admits, nearly none of which has a
  // generateName, and std::random_device costs CPUID instructions (each a trap to the
  // hypervisor on a virtual machine) and a read of the kernel's entropy: a tenth of the
  // webhook's time per review when it was seeded here.
  NameGenerator() = default;
  // The same names for the same seed and calls (tests, golden examples).
  explicit NameGenerator(std::uint64_t seed);

  // base cut to kMaxGeneratedNameLength bytes, plus 5 characters of kGeneratedNameAlphabet.
  std::string GenerateName(std::string_view base);

 private:
  std::optional<std::mt19937_64> rng_;  // seeded when first needed
};

// On create: when metadata.name is unset or empty and metadata.generateName is not, sets
// metadata.name to a generated name. Returns whether it did.
bool GenerateObjectName(codec::Node& object, NameGenerator& generator);

}  // namespace podlimits::api
