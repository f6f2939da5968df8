// Whether text is one JSON value as Go's encoding/json sees it, and if not, the message its
// scanner gives (json.Unmarshal's *SyntaxError), so a request the apiserver refuses with Go's
// words is refused here with the same ones:
//
//   invalid character 'x' looking for beginning of value
//   invalid character '}' after object key
//   unexpected end of JSON input
//
// RapidJSON parses the value afterwards; this only checks the syntax, byte by byte, as Go's
// scanner steps through it (its states and their messages; the bytes of a string are not
// checked for UTF-8, which Go replaces rather than refuses).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace podlimits::codec {

std::optional<std::string> GoJsonSyntaxError(std::string_view text);

}  // namespace podlimits::codec
