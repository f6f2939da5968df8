#include "api/yaml_resolve.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>

namespace podlimits::api {
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

// Integer forms go-yaml v2 accepts: [-+]decimal, 0x.., 0o.., 0b.., and legacy 0-prefixed octal.
// Returns the decimal text, or empty when `s` is not an integer (or does not fit int64).
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
  } else if (body.size() > 2 && body[0] == '0' && body[1] == 'o') {
    base = 8;
    body.remove_prefix(2);
  } else if (body.size() > 2 && body[0] == '0' && body[1] == 'b') {
    base = 2;
    body.remove_prefix(2);
  } else if (body.size() > 1 && body[0] == '0' && AllDigits(body, 8)) {
    base = 8;
    body.remove_prefix(1);
  }
  if (!AllDigits(body, base)) return {};
  // Go's ParseInt reads a leading 0 as octal: "0999" is not an integer (go-yaml then tries it
  // as a float).
  if (base == 10 && body.size() > 1 && body[0] == '0') return {};
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), v, base);
  if (ec != std::errc() || p != body.data() + body.size()) return {};
  if (!negative && v > static_cast<std::uint64_t>(INT64_MAX)) return {};
  if (negative && v > static_cast<std::uint64_t>(INT64_MAX) + 1) return {};
  if (base == 10) return std::string(s[0] == '+' ? s.substr(1) : s);
  return negative ? "-" + std::to_string(v) : std::to_string(v);
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

// A float literal in the form JSON accepts, same value: no sign '+', no leading zeros in the
// integer part ("0999" → "999"), digits on both sides of the point (".5" → "0.5", "1." → "1.0").
std::string JsonFloatLiteral(std::string_view t) {
  std::string lit;
  if (t.front() == '+' || t.front() == '-') {
    if (t.front() == '-') lit += '-';
    t.remove_prefix(1);
  }
  std::size_t zeros = 0;
  while (zeros + 1 < t.size() && t[zeros] == '0' && std::isdigit(static_cast<unsigned char>(t[zeros + 1])))
    ++zeros;
  t.remove_prefix(zeros);
  for (std::size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    bool prev_digit = i > 0 && std::isdigit(static_cast<unsigned char>(t[i - 1]));
    bool next_digit = i + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[i + 1]));
    if (c == '.' && !prev_digit) lit += '0';
    lit += c;
    if (c == '.' && !next_digit) lit += '0';
  }
  return lit;
}

}  // namespace

Node ResolvePlainScalar(std::string_view text) {
  Node n;
  n.yaml_plain = true;
  if (IsNull(text)) return n;
  if (int b = ResolveBool(text); b >= 0) {
    n.kind = Node::Kind::kBool;
    n.scalar = b ? "true" : "false";
    return n;
  }
  if (CouldBeNumber(text)) {
    // go-yaml v2 drops every '_' before trying the integer and float forms ("1_000" is 1000).
    std::string digits(text);
    std::erase(digits, '_');
    if (!digits.empty()) {
      if (std::string i = ResolveInt(digits); !i.empty()) {
        n.kind = Node::Kind::kNumber;
        n.scalar = std::move(i);
        return n;
      }
      if (IsFloat(digits)) {
        n.kind = Node::Kind::kNumber;
        n.scalar = JsonFloatLiteral(digits);
        return n;
      }
    }
  }
  n.kind = Node::Kind::kString;
  n.scalar = std::string(text);
  return n;
}

}  // namespace podlimits::api
