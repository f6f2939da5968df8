// Standard base64 (RFC 4648 §4, padded) as Go's encoding/base64.StdEncoding reads and writes it:
// the form of every []byte field of a Kubernetes object (Secret.data, ConfigMap.binaryData).
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"

namespace podlimits {

std::string Base64Encode(std::string_view bytes);

// The decoded bytes, or Go's CorruptInputError as the error's message, so that it reads exactly
// as the apiserver's: "illegal base64 data at input byte 8". '\r' and '\n' are skipped, as Go
// skips them.
Result<std::string> Base64Decode(std::string_view text);

// URL-safe base64 without padding (RFC 4648 §5), Go's base64.RawURLEncoding: the form of the
// apiserver's continue tokens. Decoding fails at the offset Go's decoder does: a symbol outside
// the alphabet ('=' included), or a last quantum of one symbol.
std::string Base64RawUrlEncode(std::string_view bytes);
Result<std::string> Base64RawUrlDecode(std::string_view text);

}  // namespace podlimits
