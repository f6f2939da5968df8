#include "listwatch/continue_token.h"

#include <fmt/format.h>

#include <optional>

#include "base/base64.h"
#include "codec/go_json_syntax.h"
#include "codec/json_codec.h"
#include "codec/utf8.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

constexpr std::string_view kVersion = "meta.k8s.io/v1";
constexpr std::string_view kInvalid = "continue key is not valid";

// A JSON string as encoding/json's Marshal writes it: HTML-safe (<, >, & escaped), \b \f \n \r
// \t and \u00XX for the other control bytes, U+2028 and U+2029 escaped, and invalid UTF-8 as
// U+FFFD.
std::string GoJsonString(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = codec::Utf8SequenceLength(s, i);
      if (n == 0) {
        out += "\\ufffd";
        ++i;
      } else if (n == 3 && c == 0xe2 && s[i + 1] == '\x80' &&
                 (s[i + 2] == '\xa8' || s[i + 2] == '\xa9')) {
        out += s[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
        i += 3;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == '<' || c == '>' || c == '&') {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
  return out;
}

bool FoldEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// An integer literal as strconv.ParseInt(s, 10, 64) takes it.
std::optional<std::int64_t> GoInt64(std::string_view s) {
  const bool negative = !s.empty() && s[0] == '-';
  std::string_view digits = negative ? s.substr(1) : s;
  if (digits.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const std::uint64_t bound = negative ? 9223372036854775808ULL : 9223372036854775807ULL;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (bound - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return negative ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
}

// json.Unmarshal into continueToken{V string; RV int64; Start string}: fields matched by name
// case-insensitively, a later repeat winning, null leaving a field as it is, and the first value
// of the wrong type the error (Unmarshal goes on with the rest and reports that one).
std::optional<std::string> Unmarshal(const Node& tree, std::string& version, std::int64_t& rv,
                                     std::string& start) {
  auto type_error = [](std::string_view value, std::string_view field, std::string_view type) {
    return fmt::format("json: cannot unmarshal {} into Go struct field continueToken.{} of type {}",
                       value, field, type);
  };
  if (tree.IsNull()) return std::nullopt;
  if (!tree.IsObject()) {
    return fmt::format("json: cannot unmarshal {} into Go value of type storage.continueToken",
                       codec::GoJsonKindName(tree));
  }
  std::optional<std::string> first;
  for (const auto& member : tree.members) {
    const Node& value = member.value;
    std::optional<std::string> error;
    if (FoldEqual(member.key, "v") || FoldEqual(member.key, "start")) {
      const bool is_v = FoldEqual(member.key, "v");
      if (value.IsString()) {
        (is_v ? version : start) = value.scalar;
      } else if (!value.IsNull()) {
        error = type_error(codec::GoJsonKindName(value), is_v ? "v" : "start", "string");
      }
    } else if (FoldEqual(member.key, "rv")) {
      if (value.kind == Node::Kind::kNumber) {
        if (auto parsed = GoInt64(value.scalar)) {
          rv = *parsed;
        } else {
          error = type_error("number " + value.scalar, "rv", "int64");
        }
      } else if (!value.IsNull()) {
        error = type_error(codec::GoJsonKindName(value), "rv", "int64");
      }
    }
    if (error && !first) first = std::move(error);
  }
  return first;
}

// Whether path.Clean leaves the rooted path `p` as it is: no empty, "." or ".." element and no
// trailing slash (the root itself aside).
bool IsCleanPath(std::string_view p) {
  if (p == "/") return true;
  if (p.empty() || p[0] != '/' || p.back() == '/') return false;
  for (std::size_t at = 1; at <= p.size();) {
    std::size_t end = p.find('/', at);
    if (end == std::string_view::npos) end = p.size();
    const std::string_view element = p.substr(at, end - at);
    if (element.empty() || element == "." || element == "..") return false;
    at = end + 1;
  }
  return true;
}

}  // namespace

std::string EncodeContinueToken(std::string_view start, std::int64_t revision) {
  return Base64RawUrlEncode(
      fmt::format(R"({{"v":"{}","rv":{},"start":{}}})", kVersion, revision, GoJsonString(start)));
}

Result<ContinueToken> DecodeContinueToken(std::string_view text) {
  auto json = Base64RawUrlDecode(text);
  if (!json) {
    return Failure(fmt::format("{}: {}", kInvalid, json.error().Message()));
  }
  if (auto syntax = codec::GoJsonSyntaxError(*json)) {
    return Failure(fmt::format("{}: {}", kInvalid, *syntax));
  }
  auto parsed = codec::ParseJsonStream(*json);
  if (!parsed || parsed->size() != 1) {
    // What Go's scanner accepts and RapidJSON does not (a lone surrogate escape).
    return Failure(
        fmt::format("{}: {}", kInvalid, parsed ? "not one JSON value" : parsed.error().message));
  }
  std::string version, start;
  std::int64_t rv = 0;
  if (auto error = Unmarshal((*parsed)[0], version, rv, start)) {
    return Failure(fmt::format("{}: {}", kInvalid, *error));
  }
  if (version != kVersion) {
    return Failure(
        fmt::format("{}: server does not recognize this encoded version {}", kInvalid, version));
  }
  if (rv == 0) {
    return Failure(fmt::format(
        "{}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)", kInvalid));
  }
  if (start.empty()) {
    return Failure(fmt::format("{}: encoded start key empty (version meta.k8s.io/v1)", kInvalid));
  }
  const std::string rooted = start[0] == '/' ? start : "/" + start;
  if (!IsCleanPath(rooted)) return Failure(fmt::format("{}: {}", kInvalid, start));
  return ContinueToken{rv, rooted.substr(1)};
}

}  // namespace podlimits::apiserver
