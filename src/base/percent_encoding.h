// Percent-decoding (RFC 3986 %XX), shared by the HTTP query parser and gRPC's grpc-message.
#pragma once

#include <string>
#include <string_view>

namespace podlimits {

// Decodes %XX escapes; a '%' not followed by two hex digits stays as it is. With
// `plus_is_space` a '+' becomes ' ' (form encoding, Go's url.QueryUnescape).
std::string PercentDecode(std::string_view s, bool plus_is_space);

}  // namespace podlimits
