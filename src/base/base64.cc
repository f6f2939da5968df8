#include "base/base64.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>

namespace podlimits {

namespace {

// Go's base64.CorruptInputError, which says where the input went wrong.
Error CorruptInput(std::size_t offset) {
  return Error{.detail = fmt::format("illegal base64 data at input byte {}", offset)};
}

}  // namespace
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::string_view kUrlAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr std::array<std::uint8_t, 256> DecodeMap(std::string_view alphabet) {
  std::array<std::uint8_t, 256> map{};
  for (auto& v : map) v = 0xff;
  for (std::size_t i = 0; i < alphabet.size(); ++i)
    map[static_cast<unsigned char>(alphabet[i])] = static_cast<std::uint8_t>(i);
  return map;
}
constexpr auto kDecodeMap = DecodeMap(kAlphabet);
constexpr auto kUrlDecodeMap = DecodeMap(kUrlAlphabet);

bool IsNewline(char c) { return c == '\n' || c == '\r'; }

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t v = static_cast<unsigned char>(bytes[i]) << 16 |
                      static_cast<unsigned char>(bytes[i + 1]) << 8 |
                      static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += kAlphabet[v >> 6 & 63];
    out += kAlphabet[v & 63];
  }
  if (std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += rest == 2 ? kAlphabet[v >> 6 & 63] : '=';
    out += '=';
  }
  return out;
}

// Go's decodeQuantum, quantum by quantum, with its error offsets.
Result<std::string> Base64Decode(std::string_view src) {
  std::string out;
  out.reserve(src.size() / 4 * 3);
  std::size_t si = 0;
  while (true) {
    std::uint8_t buf[4] = {};
    std::size_t len = 4;
    bool end = false;
    for (std::size_t j = 0; j < 4; ++j) {
      if (si == src.size()) {
        if (j == 0) return out;
        return std::unexpected(CorruptInput(si - j));  // a partial quantum: padding was required
      }
      const char in = src[si++];
      const std::uint8_t value = kDecodeMap[static_cast<unsigned char>(in)];
      if (value != 0xff) {
        buf[j] = value;
        continue;
      }
      if (IsNewline(in)) {
        --j;
        continue;
      }
      if (in != '=') return std::unexpected(CorruptInput(si - 1));
      // Padding: only after two or three symbols, and "==" after two.
      if (j < 2) return std::unexpected(CorruptInput(si - 1));
      if (j == 2) {
        while (si < src.size() && IsNewline(src[si])) ++si;
        if (si == src.size()) return std::unexpected(CorruptInput(src.size()));
        if (src[si] != '=') return std::unexpected(CorruptInput(si - 1));
        ++si;
      }
      while (si < src.size() && IsNewline(src[si])) ++si;
      if (si < src.size()) return std::unexpected(CorruptInput(si));  // trailing garbage
      len = j;
      end = true;
      break;
    }
    const std::uint32_t v = buf[0] << 18 | buf[1] << 12 | buf[2] << 6 | buf[3];
    out += static_cast<char>(v >> 16 & 0xff);
    if (len >= 3) out += static_cast<char>(v >> 8 & 0xff);
    if (len >= 4) out += static_cast<char>(v & 0xff);
    if (end) return out;
  }
}

std::string Base64RawUrlEncode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t v = static_cast<unsigned char>(bytes[i]) << 16 |
                      static_cast<unsigned char>(bytes[i + 1]) << 8 |
                      static_cast<unsigned char>(bytes[i + 2]);
    out += kUrlAlphabet[v >> 18 & 63];
    out += kUrlAlphabet[v >> 12 & 63];
    out += kUrlAlphabet[v >> 6 & 63];
    out += kUrlAlphabet[v & 63];
  }
  if (std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kUrlAlphabet[v >> 18 & 63];
    out += kUrlAlphabet[v >> 12 & 63];
    if (rest == 2) out += kUrlAlphabet[v >> 6 & 63];
  }
  return out;
}

// decodeQuantum without a padding character: a last quantum of two or three symbols is whole,
// one of a single symbol is not; '=' is a symbol like any other outside the alphabet.
Result<std::string> Base64RawUrlDecode(std::string_view src) {
  std::string out;
  out.reserve(src.size() / 4 * 3 + 2);
  std::size_t si = 0;
  while (true) {
    std::uint8_t buf[4] = {};
    std::size_t len = 4;
    for (std::size_t j = 0; j < 4; ++j) {
      if (si == src.size()) {
        if (j == 0) return out;
        if (j == 1) return std::unexpected(CorruptInput(si - j));
        len = j;
        break;
      }
      const char in = src[si++];
      const std::uint8_t value = kUrlDecodeMap[static_cast<unsigned char>(in)];
      if (value != 0xff) {
        buf[j] = value;
        continue;
      }
      if (IsNewline(in)) {
        --j;
        continue;
      }
      return std::unexpected(CorruptInput(si - 1));
    }
    const std::uint32_t v = buf[0] << 18 | buf[1] << 12 | buf[2] << 6 | buf[3];
    out += static_cast<char>(v >> 16 & 0xff);
    if (len >= 3) out += static_cast<char>(v >> 8 & 0xff);
    if (len >= 4) out += static_cast<char>(v & 0xff);
    if (len < 4) return out;
  }
}

}  // namespace podlimits
