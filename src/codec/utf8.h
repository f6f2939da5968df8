#pragma once

#include <cstddef>
#include <string_view>

namespace podlimits::codec {

// The length of the valid UTF-8 sequence at `s[i]` (1 for ASCII), or 0 when it is not one:
// a bad lead or continuation byte, a truncated sequence, an overlong form, a surrogate or a
// code point past U+10FFFF. What Go's JSON encoder replaces with U+FFFD, byte by byte.
std::size_t Utf8SequenceLength(std::string_view s, std::size_t i);

}  // namespace podlimits::codec
