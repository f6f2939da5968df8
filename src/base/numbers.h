// Whole decimal numbers from text, as Go's strconv.ParseInt(s, 10, 64): the whole text, an
// optional sign, no spaces.
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

}  // namespace podlimits
