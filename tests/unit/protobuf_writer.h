// A minimal protobuf writer for tests that send the bodies client-go and kubectl send: the
// `k8s\0` envelope (runtime.Unknown) around a message written field by field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace podlimits::testing::protobuf {

inline std::string Varint(std::uint64_t v) {
  std::string out;
  do {
    unsigned char b = v & 0x7f;
    v >>= 7;
    if (v) b |= 0x80;
    out.push_back(static_cast<char>(b));
  } while (v);
  return out;
}
// A length-delimited field (string, bytes, message).
inline std::string Bytes(int field, std::string_view data) {
  return Varint(static_cast<std::uint64_t>(field) << 3 | 2) + Varint(data.size()) +
         std::string(data);
}
inline std::string Int(int field, std::uint64_t v) {
  return Varint(static_cast<std::uint64_t>(field) << 3) + Varint(v);
}
// A map<string, string> entry.
inline std::string Entry(int field, std::string_view key, std::string_view value) {
  return Bytes(field, Bytes(1, key) + Bytes(2, value));
}
// "k8s\0" + runtime.Unknown {typeMeta {apiVersion, kind}, raw}.
inline std::string Envelope(std::string_view api_version, std::string_view kind,
                            const std::string& raw) {
  return std::string("k8s\0", 4) + Bytes(1, Bytes(1, api_version) + Bytes(2, kind)) +
         Bytes(2, raw);
}

}  // namespace podlimits::testing::protobuf
