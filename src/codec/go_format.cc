#include "codec/go_format.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace podlimits::codec {
namespace {

// A finite non-zero value as shortest decimal digits d1 d2 ... dn and the position of the
// decimal point: value = 0.d1d2...dn × 10^point (Go's decimalSlice).
struct Digits {
  bool negative = false;
  std::string digits;
  int point = 0;
};

template <typename F>
Digits ShortestDigits(F f) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), f, std::chars_format::scientific);
  std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));  // "-d.ddde+XX"
  Digits d;
  if (text.front() == '-') {
    d.negative = true;
    text.remove_prefix(1);
  }
  std::size_t e = text.find('e');
  for (char c : text.substr(0, e)) {
    if (c != '.') d.digits += c;
  }
  d.point = std::atoi(std::string(text.substr(e + 1)).c_str()) + 1;
  return d;
}

// %f with `decimals` digits after the point (Go's fmtF).
std::string FormatFixed(const Digits& d, int decimals) {
  std::string out = d.negative ? "-" : "";
  int n = static_cast<int>(d.digits.size());
  if (d.point > 0) {
    int whole = std::min(n, d.point);
    out.append(d.digits, 0, static_cast<std::size_t>(whole));
    out.append(static_cast<std::size_t>(d.point - whole), '0');
  } else {
    out += '0';
  }
  if (decimals > 0) {
    out += '.';
    for (int i = 0; i < decimals; ++i) {
      int at = d.point + i;
      out += at >= 0 && at < n ? d.digits[static_cast<std::size_t>(at)] : '0';
    }
  }
  return out;
}

// %e with every digit (Go's fmtE with the shortest precision): "d.ddde+XX".
std::string FormatExponent(const Digits& d) {
  std::string out = d.negative ? "-" : "";
  out += d.digits[0];
  if (d.digits.size() > 1) {
    out += '.';
    out.append(d.digits, 1, std::string::npos);
  }
  int exp = d.point - 1;
  out += exp < 0 ? "e-" : "e+";
  exp = std::abs(exp);
  if (exp < 10) out += '0';
  out += std::to_string(exp);
  return out;
}

std::string Zero(bool negative) {
  return negative ? "-0" : "0";
}

}  // namespace

std::string GoJsonFloat(double f) {
  if (f == 0) return Zero(std::signbit(f));
  Digits d = ShortestDigits(f);
  double abs = std::fabs(f);
  if (abs >= 1e-6 && abs < 1e21) {
    return FormatFixed(d, std::max(static_cast<int>(d.digits.size()) - d.point, 0));
  }
  std::string out = FormatExponent(d);
  // encoding/json: "clean up e-09 to e-9".
  std::size_t n = out.size();
  if (n >= 4 && out[n - 4] == 'e' && out[n - 3] == '-' && out[n - 2] == '0') out.erase(n - 2, 1);
  return out;
}

std::string GoFormatFloat32G(float f) {
  if (f == 0) return Zero(std::signbit(f));
  Digits d = ShortestDigits(f);
  int exp = d.point - 1;
  if (exp < -4 || exp >= 6) return FormatExponent(d);
  return FormatFixed(d, std::max(static_cast<int>(d.digits.size()) - d.point, 0));
}

}  // namespace podlimits::codec
