// Numbers and booleans from text as Go's strconv reads them: ParseInt(s, 10, 64) (the whole
// text, an optional sign, no spaces) and ParseBool (the spellings Kubernetes' annotations and
// flags accept).
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace podlimits {

inline std::optional<std::int64_t> ParseInt64(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// strconv.ParseBool: 1 t T TRUE true True, 0 f F FALSE false False; anything else is nullopt.
inline std::optional<bool> ParseGoBool(std::string_view v) {
  if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") return true;
  if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False") {
    return false;
  }
  return std::nullopt;
}

}  // namespace podlimits
