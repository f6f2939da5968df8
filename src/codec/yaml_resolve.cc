#include "codec/yaml_resolve.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "codec/go_format.h"

namespace podlimits::codec {
namespace {

bool IsNull(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

int ResolveBool(std::string_view s) {
  static constexpr std::array<std::string_view, 11> kTrue = {
      "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static constexpr std::array<std::string_view, 11> kFalse = {
      "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  for (auto t : kTrue) {
    if (s == t) return 1;
  }
  for (auto f : kFalse) {
    if (s == f) return 0;
  }
  return -1;
}

bool AllDigits(std::string_view s, int base) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = base == 16  ? std::isxdigit(static_cast<unsigned char>(c))
              : base == 8 ? (c >= '0' && c <= '7')
              : base == 2 ? (c == '0' || c == '1')
                          : (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// Integer forms go-yaml v2 accepts (Go's ParseInt, then ParseUint, with base 0): [-+]decimal,
// 0x.., 0o.., 0b.., and legacy 0-prefixed octal. Returns the decimal text encoding/json would
// write for the value, or empty when `s` is not an integer that fits int64 (or uint64).
std::string ResolveInt(std::string_view s) {
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  int base = 10;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    base = 16;
    body.remove_prefix(2);
  } else if (body.size() > 2 && body[0] == '0' && (body[1] == 'o' || body[1] == 'O')) {
    base = 8;
    body.remove_prefix(2);
  } else if (body.size() > 2 && body[0] == '0' && (body[1] == 'b' || body[1] == 'B')) {
    base = 2;
    body.remove_prefix(2);
  } else if (body.size() > 1 && body[0] == '0') {
    // Go's ParseInt reads a leading 0 as octal: "0999" is not an integer (go-yaml then tries
    // it as a float).
    base = 8;
    body.remove_prefix(1);
  }
  if (!AllDigits(body, base)) return {};
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), v, base);
  if (ec != std::errc() || p != body.data() + body.size()) return {};
  if (negative && v > static_cast<std::uint64_t>(INT64_MAX) + 1) return {};
  if (!negative || v == 0) return std::to_string(v);
  return "-" + std::to_string(v);
}

bool IsFloat(std::string_view s) {
  // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  std::size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++int_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    std::size_t exp_digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// go-yaml v2 only tries a scalar as a number when its first character could start one.
bool CouldBeNumber(std::string_view s) {
  char c = s.front();
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
}

// YAML 1.1's infinities and NaN, which go-yaml v2 resolves to floats that JSON cannot hold.
std::string_view SpecialFloat(std::string_view s) {
  for (std::string_view inf : {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"}) {
    if (s == inf) return kYamlPositiveInfinity;
  }
  for (std::string_view inf : {"-.inf", "-.Inf", "-.INF"}) {
    if (s == inf) return kYamlNegativeInfinity;
  }
  for (std::string_view nan : {".nan", ".NaN", ".NAN"}) {
    if (s == nan) return kYamlNaN;
  }
  return {};
}

// A float as encoding/json writes go-yaml's float64, or empty when Go's ParseFloat would fail
// (out of range: go-yaml then keeps the scalar as a string).
std::string ResolveFloat(const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || std::isinf(v)) return {};
  return GoJsonFloat(v);
}

}  // namespace

Node ResolvePlainScalar(std::string_view text) {
  Node n;
  // Only these first characters can start a null, a bool, a number or a special float; any
  // other scalar (most keys and names) is a string without trying each form.
  constexpr std::string_view kCouldStartAnother = "~nNyYtTfFoO0123456789+-.";
  if (!text.empty() && kCouldStartAnother.find(text.front()) == std::string_view::npos) {
    return Node::String(std::string(text));
  }
  if (IsNull(text)) return n;
  if (int b = ResolveBool(text); b >= 0) {
    n.kind = Node::Kind::kBool;
    n.scalar = b ? "true" : "false";
    return n;
  }
  if (std::string_view special = SpecialFloat(text); !special.empty()) {
    n.kind = Node::Kind::kNumber;
    n.scalar = std::string(special);
    return n;
  }
  if (CouldBeNumber(text)) {
    // go-yaml v2 drops every '_' before trying the integer and float forms ("1_000" is 1000);
    // a scalar starting with '.' goes straight to ParseFloat, which refuses them.
    std::string digits(text);
    if (text.front() != '.') std::erase(digits, '_');
    if (!digits.empty()) {
      if (std::string i = ResolveInt(digits); !i.empty()) {
        n.kind = Node::Kind::kNumber;
        n.scalar = std::move(i);
        return n;
      }
      if (IsFloat(digits)) {
        if (std::string f = ResolveFloat(digits); !f.empty()) {
          n.kind = Node::Kind::kNumber;
          n.scalar = std::move(f);
          return n;
        }
      }
    }
  }
  return Node::String(std::string(text));
}

bool IsYamlSpecialFloat(const Node& n) {
  return n.kind == Node::Kind::kNumber &&
         (n.scalar == kYamlPositiveInfinity || n.scalar == kYamlNegativeInfinity || n.scalar == kYamlNaN);
}

std::optional<std::string> ResolvePlainKey(std::string_view text) {
  Node n = ResolvePlainScalar(text);
  switch (n.kind) {
    case Node::Kind::kNull:
      return std::nullopt;
    case Node::Kind::kNumber: {
      if (n.scalar == kYamlPositiveInfinity) return ".inf";
      if (n.scalar == kYamlNegativeInfinity) return "-.inf";
      if (n.scalar == kYamlNaN) return ".nan";
      std::string digits(text);
      if (text.front() != '.') std::erase(digits, '_');
      if (std::string i = ResolveInt(digits); !i.empty()) return i;
      return GoFormatFloat32G(static_cast<float>(std::strtod(n.scalar.c_str(), nullptr)));
    }
    default:
      return n.scalar;
  }
}

}  // namespace podlimits::codec
