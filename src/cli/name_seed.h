// PODLIMITS_GENERATE_NAME_SEED: makes the names generated for generateName objects
// reproducible (tests and the golden examples). Unset, names are random, as the apiserver's.
#pragma once

#include <expected>
#include <memory>
#include <string>

#include "api/name_generator.h"
#include "base/error.h"

namespace podlimits::cli {

inline constexpr const char* kNameSeedVariable = "PODLIMITS_GENERATE_NAME_SEED";

// A generator seeded from the variable (a decimal unsigned 64-bit number) when it is set,
// a randomly seeded one when it is not; an error naming the variable when it does not parse.
Result<std::unique_ptr<api::NameGenerator>> NameGeneratorFromEnvironment();

}  // namespace podlimits::cli
