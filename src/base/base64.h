// Standard base64 (RFC 4648 §4, padded) as Go's encoding/base64.StdEncoding reads and writes it:
// the form of every []byte field of a Kubernetes object (Secret.data, ConfigMap.binaryData).
#pragma once

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>

namespace podlimits {

std::string Base64Encode(std::string_view bytes);

// The decoded bytes, or the offset Go's decoder reports (CorruptInputError), so an error reads
// exactly as the apiserver's: "illegal base64 data at input byte 8". '\r' and '\n' are skipped,
// as Go skips them.
std::expected<std::string, std::size_t> Base64Decode(std::string_view text);

// URL-safe base64 without padding (RFC 4648 §5), Go's base64.RawURLEncoding: the form of the
// apiserver's continue tokens. Decoding reports the offset Go's decoder does: a symbol outside
// the alphabet ('=' included), or a last quantum of one symbol.
std::string Base64RawUrlEncode(std::string_view bytes);
std::expected<std::string, std::size_t> Base64RawUrlDecode(std::string_view text);

}  // namespace podlimits
