#include "codec/go_duration.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "field/field.h"

namespace podlimits::codec {
namespace {

constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;

constexpr std::array<std::pair<std::string_view, std::uint64_t>, 8> kUnits = {{
    {"ns", 1},
    {"us", 1000},
    {"\u00b5s", 1000},  // U+00B5 micro sign
    {"\u03bcs", 1000},  // U+03BC Greek mu
    {"ms", 1000000},
    {"s", 1000000000},
    {"m", 60ULL * 1000000000},
    {"h", 3600ULL * 1000000000},
}};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view text) {
  const std::string_view orig = text;
  auto invalid = [&] { return Failure("time: invalid duration " + field::GoQuote(orig)); };
  std::string_view s = text;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return invalid();
  std::uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || IsDigit(s[0]))) return invalid();
    // The integer part; an overflow is an invalid duration.
    std::uint64_t v = 0;
    std::size_t i = 0;
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      if (v > kMaxMagnitude / 10) return invalid();
      v = v * 10 + static_cast<std::uint64_t>(s[i] - '0');
      if (v > kMaxMagnitude) return invalid();
    }
    const bool pre = i != 0;
    s.remove_prefix(i);
    // The fraction: digits past what fits are consumed and dropped.
    std::uint64_t f = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      std::size_t j = 0;
      bool overflow = false;
      for (; j < s.size() && IsDigit(s[j]); ++j) {
        if (overflow) continue;
        if (f > (kMaxMagnitude - 1) / 10) {
          overflow = true;
          continue;
        }
        const std::uint64_t next = f * 10 + static_cast<std::uint64_t>(s[j] - '0');
        if (next > kMaxMagnitude) {
          overflow = true;
          continue;
        }
        f = next;
        scale *= 10;
      }
      post = j != 0;
      s.remove_prefix(j);
    }
    if (!pre && !post) return invalid();
    std::size_t u = 0;
    while (u < s.size() && !(s[u] == '.' || IsDigit(s[u]))) ++u;
    if (u == 0) return Failure("time: missing unit in duration " + field::GoQuote(orig));
    const std::string_view unit_text = s.substr(0, u);
    s.remove_prefix(u);
    std::uint64_t unit = 0;
    for (const auto& [name, ns] : kUnits) {
      if (name == unit_text) unit = ns;
    }
    if (unit == 0) {
      return Failure("time: unknown unit " + field::GoQuote(unit_text) + " in duration " +
                     field::GoQuote(orig));
    }
    if (v > kMaxMagnitude / unit) return invalid();
    v *= unit;
    if (f > 0) {
      v += static_cast<std::uint64_t>(static_cast<double>(f) *
                                      (static_cast<double>(unit) / scale));
      if (v > kMaxMagnitude) return invalid();
    }
    total += v;
    if (total > kMaxMagnitude) return invalid();
  }
  if (neg) {
    return std::chrono::nanoseconds(static_cast<std::int64_t>(0 - total));
  }
  if (total > kMaxMagnitude - 1) return invalid();
  return std::chrono::nanoseconds(static_cast<std::int64_t>(total));
}

std::string FormatGoDuration(std::chrono::nanoseconds d) {
  // time.Duration.String: h, m and s with a decimal fraction of seconds; below one second the
  // largest of ms, µs, ns that keeps an integer part.
  std::int64_t n = d.count();
  if (n == 0) return "0s";
  const bool neg = n < 0;
  std::uint64_t u = neg ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  auto fraction = [](std::uint64_t v, int digits) {
    // v's last `digits` digits as ".ddd" without trailing zeros, and v without them.
    std::string frac;
    bool print = false;
    for (int i = 0; i < digits; ++i) {
      const auto digit = static_cast<char>('0' + v % 10);
      print = print || digit != '0';
      if (print) frac.insert(frac.begin(), digit);
      v /= 10;
    }
    return std::pair{print ? "." + frac : std::string(), v};
  };
  std::string out;
  if (u < 1000000000) {
    if (u < 1000) {
      out = std::to_string(u) + "ns";
    } else if (u < 1000000) {
      auto [frac, whole] = fraction(u, 3);
      out = std::to_string(whole) + frac + "\u00b5s";
    } else {
      auto [frac, whole] = fraction(u, 6);
      out = std::to_string(whole) + frac + "ms";
    }
  } else {
    auto [frac, secs] = fraction(u, 9);
    out = std::to_string(secs % 60) + frac + "s";
    const std::uint64_t mins = secs / 60;
    if (mins > 0) {
      out = std::to_string(mins % 60) + "m" + out;
      if (mins / 60 > 0) out = std::to_string(mins / 60) + "h" + out;
    }
  }
  return neg ? "-" + out : out;
}

}  // namespace podlimits::codec
