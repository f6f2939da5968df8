#include "cli/name_seed.h"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/error.h"

namespace podlimits::cli {

Result<std::unique_ptr<api::NameGenerator>> NameGeneratorFromEnvironment() {
  const char* value = std::getenv(kNameSeedVariable);
  if (!value) return std::make_unique<api::NameGenerator>();
  std::string_view text(value);
  std::uint64_t seed = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return Failure(std::string("invalid ") + kNameSeedVariable + " \"" + std::string(text) +
                   "\": must be an unsigned 64-bit decimal number");
  }
  return std::make_unique<api::NameGenerator>(seed);
}

}  // namespace podlimits::cli
