// Integer and decimal arithmetic with upstream's exact semantics: Go's int64 helpers of math.go
// and amount.go (wrap-around included) and the parts of inf.Dec that Quantity relies on.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "resource/quantity_internal.h"

namespace podlimits::resource::quantity_internal {
namespace {

// Go's a / b, which is defined (and wraps) for MinInt64 / -1.
std::int64_t GoDivide(std::int64_t a, std::int64_t b) {
  return b == -1 ? WrapNeg(a) : a / b;
}

// |x| mod 2^64.
std::uint64_t LowMagnitudeBits(const BigInt& x) {
  BigInt magnitude = abs(x);
  return static_cast<std::uint64_t>(magnitude & BigInt(std::numeric_limits<std::uint64_t>::max()));
}

// (coef * 10^t) mod 2^64, as a signed Go int64.
std::int64_t Low64OfScaled(const BigInt& coef, std::int64_t t) {
  if (t >= 64) return 0;  // 2^64 divides 10^64
  std::uint64_t result = LowMagnitudeBits(coef);
  for (std::int64_t i = 0; i < t; ++i) result *= 10;
  if (coef < 0) result = 0 - result;
  return static_cast<std::int64_t>(result);
}

}  // namespace

std::int64_t Pow10Int64(int n) {
  static constexpr std::array<std::int64_t, 19> kPowers = [] {
    std::array<std::int64_t, 19> powers{};
    std::int64_t p = 1;
    for (auto& power : powers) {
      power = p;
      if (p < 1000000000000000000) p *= 10;
    }
    return powers;
  }();
  return kPowers[static_cast<std::size_t>(n)];
}

std::pair<std::int64_t, bool> Int64Add(std::int64_t a, std::int64_t b) {
  const std::int64_t c = WrapAdd(a, b);
  if (a > 0 && b > 0) {
    if (c < 0) return {0, false};
  } else if (a < 0 && b < 0) {
    if (c > 0) return {0, false};
    if (a == kMostNegative && b == kMostNegative) return {0, false};
  }
  return {c, true};
}

std::pair<std::int64_t, bool> Int64Multiply(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0 || a == 1 || b == 1) return {WrapMul(a, b), true};
  if (a == kMostNegative || b == kMostNegative) return {0, false};
  const std::int64_t c = WrapMul(a, b);
  return {c, GoDivide(c, b) == a};
}

std::pair<std::int64_t, bool> Int64MultiplyScale(std::int64_t a, std::int64_t b) {
  if (a == 0 || a == 1) return {WrapMul(a, b), true};
  if (a == kMostNegative && b != 1) return {0, false};
  const std::int64_t c = WrapMul(a, b);
  return {c, c / b == a};
}

std::pair<std::int64_t, bool> PositiveScaleInt64(std::int64_t base, std::int32_t scale) {
  switch (scale) {
    case 0:
      return {base, true};
    case 1:
      return Int64MultiplyScale(base, 10);
    case 2:
      return Int64MultiplyScale(base, 100);
    case 3:
      return Int64MultiplyScale(base, 1000);
    case 6:
      return Int64MultiplyScale(base, 1000000);
    case 9:
      return Int64MultiplyScale(base, 1000000000);
    default:
      break;
  }
  // A negative scale (an int32 difference that wrapped) runs no iteration upstream either.
  std::int64_t value = base;
  for (std::int32_t i = 0; i < scale; ++i) {
    // Upstream keeps multiplying 0 by 10 up to 2^31 times; the answer is the same.
    if (value == 0) return {0, true};
    auto [product, ok] = Int64MultiplyScale(value, 10);
    if (!ok) return {0, false};
    value = product;
  }
  return {value, true};
}

std::pair<std::int64_t, bool> NegativeScaleInt64(std::int64_t base, std::int32_t scale) {
  if (scale == 0) return {base, true};
  std::int64_t value = base;
  bool fraction = false;
  for (std::int32_t i = 0; i < scale; ++i) {
    if (!fraction && value % 10 != 0) fraction = true;
    value /= 10;
    if (value == 0) {
      if (fraction) return {base > 0 ? 1 : -1, false};
      return {0, true};
    }
  }
  if (fraction) value += base > 0 ? 1 : -1;
  return {value, !fraction};
}

std::pair<std::int64_t, std::int32_t> RemoveInt64Factors(std::int64_t value, std::int64_t base) {
  std::int32_t times = 0;
  const bool negative = value < 0;
  std::int64_t result = negative ? WrapNeg(value) : value;
  while (result >= base && result % base == 0) {
    ++times;
    result /= base;
  }
  return {negative ? WrapNeg(result) : result, times};
}

std::pair<std::int64_t, bool> AsScaledInt64(std::int64_t value, std::int32_t scale,
                                            std::int32_t to_scale) {
  if (scale < to_scale) {
    return {NegativeScaleInt64(value, Wrap32(std::int64_t{to_scale} - scale)).first, true};
  }
  return PositiveScaleInt64(value, Wrap32(std::int64_t{scale} - to_scale));
}

BigInt Pow10(std::uint64_t n) {
  static const std::array<BigInt, 64> kSmall = [] {
    std::array<BigInt, 64> powers;
    BigInt p = 1;
    for (auto& power : powers) {
      power = p;
      p *= 10;
    }
    return powers;
  }();
  if (n < kSmall.size()) return kSmall[n];
  return boost::multiprecision::pow(BigInt(10), static_cast<unsigned>(n));
}

std::int64_t DigitCount(const BigInt& x) {
  const BigInt magnitude = abs(x);
  if (magnitude <= std::numeric_limits<std::uint64_t>::max()) {
    auto v = static_cast<std::uint64_t>(magnitude);
    std::int64_t digits = 1;
    while (v >= 10) {
      v /= 10;
      ++digits;
    }
    return digits;
  }
  // 2^(bits-1) <= |x|, so this undershoots the digit count by at most one or two.
  const auto bits = static_cast<std::int64_t>(boost::multiprecision::msb(magnitude)) + 1;
  auto digits = static_cast<std::int64_t>(static_cast<double>(bits - 1) * 0.30102999566);
  while (magnitude >= Pow10(static_cast<std::uint64_t>(digits))) ++digits;
  return digits;
}

std::int64_t StripTrailingZeros(BigInt& x) {
  static const BigInt kTen19 = Pow10(19);
  std::int64_t count = 0;
  BigInt quotient;
  BigInt remainder;
  for (;;) {
    boost::multiprecision::divide_qr(x, kTen19, quotient, remainder);
    if (remainder != 0) break;
    x.swap(quotient);
    count += 19;
  }
  for (;;) {
    boost::multiprecision::divide_qr(x, BigInt(10), quotient, remainder);
    if (remainder != 0) break;
    x.swap(quotient);
    ++count;
  }
  return count;
}

std::int64_t Low64(const BigInt& x) {
  return Low64OfScaled(x, 0);
}

std::string ToDecimalString(const BigInt& x) {
  if (x == 0) return "0";
  constexpr int kChunkDigits = 18;
  static const BigInt kChunk = Pow10(kChunkDigits);
  std::vector<std::uint64_t> chunks;  // least significant first
  BigInt rest = abs(x);
  BigInt quotient;
  BigInt remainder;
  while (rest != 0) {
    boost::multiprecision::divide_qr(rest, kChunk, quotient, remainder);
    chunks.push_back(static_cast<std::uint64_t>(remainder));
    rest.swap(quotient);
  }
  std::string text = x < 0 ? "-" : "";
  text.append(std::to_string(chunks.back()));
  for (auto it = chunks.rbegin() + 1; it != chunks.rend(); ++it) {
    const std::string digits = std::to_string(*it);
    text.append(kChunkDigits - digits.size(), '0');
    text.append(digits);
  }
  return text;
}

BigDecimal DecimalFromUnscaled(BigInt unscaled, std::int32_t scale) {
  BigDecimal d;
  d.scale = scale;
  if (unscaled == 0) return d;
  const std::int64_t zeros = StripTrailingZeros(unscaled);
  d.coef = std::move(unscaled);
  d.exp = zeros - scale;
  return d;
}

BigDecimal DecimalFromInt64(std::int64_t value, std::int32_t scale) {
  return DecimalFromUnscaled(BigInt(value), Wrap32(-std::int64_t{scale}));
}

BigDecimal RoundAwayFromZero(const BigDecimal& x, std::int32_t target_scale) {
  BigDecimal result;
  result.scale = target_scale;
  if (x.coef == 0) return result;
  // inf.Dec computes the shift in int32; when it wraps, upstream shifts the wrong way.
  const std::int64_t shift = Wrap32(std::int64_t{target_scale} - x.scale);
  const std::int64_t unscaled_zeros = x.exp + x.scale;
  if (shift >= 0) {
    result.coef = x.coef;
    result.exp = unscaled_zeros + shift - target_scale;
    return result;
  }
  const std::int64_t divisor_digits = -shift;
  if (unscaled_zeros >= divisor_digits) {
    result.coef = x.coef;
    result.exp = unscaled_zeros - divisor_digits - target_scale;
    return result;
  }
  // coef has no factor of ten, so this division always leaves a remainder.
  const std::int64_t digits = divisor_digits - unscaled_zeros;
  BigInt quotient = 0;
  if (digits < DigitCount(x.coef)) quotient = x.coef / Pow10(static_cast<std::uint64_t>(digits));
  quotient += x.coef < 0 ? -1 : 1;
  return DecimalFromUnscaled(std::move(quotient), target_scale);
}

int CompareDecimal(const BigInt& a_coef, std::int64_t a_exp, const BigInt& b_coef,
                   std::int64_t b_exp) {
  const int a_sign = a_coef.sign();
  const int b_sign = b_coef.sign();
  if (a_sign != b_sign) return a_sign < b_sign ? -1 : 1;
  if (a_sign == 0) return 0;
  // Compare orders of magnitude first so that a distant exponent is never written out.
  const std::int64_t a_order = DigitCount(a_coef) + a_exp;
  const std::int64_t b_order = DigitCount(b_coef) + b_exp;
  if (a_order != b_order) return a_order > b_order ? a_sign : -a_sign;
  BigInt a = abs(a_coef);
  BigInt b = abs(b_coef);
  if (a_exp > b_exp) a *= Pow10(static_cast<std::uint64_t>(a_exp - b_exp));
  if (b_exp > a_exp) b *= Pow10(static_cast<std::uint64_t>(b_exp - a_exp));
  const int c = a.compare(b);
  if (c == 0) return 0;
  return c > 0 ? a_sign : -a_sign;
}

BigDecimal AddDecimal(const BigDecimal& a, const BigDecimal& b) {
  BigDecimal result;
  result.scale = std::max(a.scale, b.scale);
  if (a.coef == 0 && b.coef == 0) return result;
  if (a.coef == 0 || b.coef == 0) {
    const BigDecimal& nonzero = a.coef == 0 ? b : a;
    result.coef = nonzero.coef;
    result.exp = nonzero.exp;
    return result;
  }
  const BigDecimal& low = a.exp <= b.exp ? a : b;
  const BigDecimal& high = a.exp <= b.exp ? b : a;
  const std::int64_t gap = high.exp - low.exp;
  if (gap > kMaxAlignDigits && DigitCount(low.coef) <= gap) {
    // |low| is below one unit of high's last digit; see quantity_internal.h.
    result.coef = high.coef;
    result.exp = high.exp;
    return result;
  }
  BigInt sum = low.coef + high.coef * Pow10(static_cast<std::uint64_t>(gap));
  if (sum == 0) return result;
  result.exp = low.exp + StripTrailingZeros(sum);
  result.coef = std::move(sum);
  return result;
}

std::int64_t DecimalScaledValue(const BigDecimal& d, std::int32_t new_scale) {
  // Every branch of scaledValue yields 0 for 0.
  if (d.coef == 0) return 0;
  const std::int64_t dif = std::int64_t{d.scale} - new_scale;
  const std::int64_t unscaled_zeros = d.exp + d.scale;
  if (dif == 0) return Low64OfScaled(d.coef, unscaled_zeros);
  if (dif < 0) {
    // int64(math.Pow10(n)) for n >= 19 is out of range; amd64 turns it into MinInt64.
    const std::int64_t multiplier = -dif <= 18 ? Pow10Int64(static_cast<int>(-dif)) : kMostNegative;
    return WrapMul(Low64OfScaled(d.coef, unscaled_zeros), multiplier);
  }
  if (dif < 19 && unscaled_zeros < 19) {
    const BigInt unscaled = d.coef * Pow10(static_cast<std::uint64_t>(unscaled_zeros));
    if (abs(unscaled) < kMostPositive) {
      // Go's truncating division, then +1 for any remainder, even below zero.
      const auto value = static_cast<std::int64_t>(unscaled);
      const std::int64_t divisor = Pow10Int64(static_cast<int>(dif));
      return value / divisor + (value % divisor != 0 ? 1 : 0);
    }
  }
  // big.Int.DivMod is Euclidean: the quotient is floored.
  if (unscaled_zeros >= dif) return Low64OfScaled(d.coef, unscaled_zeros - dif);
  const std::int64_t digits = dif - unscaled_zeros;
  BigInt quotient = 0;
  if (digits < DigitCount(d.coef)) quotient = d.coef / Pow10(static_cast<std::uint64_t>(digits));
  if (d.coef < 0) quotient -= 1;
  return WrapAdd(Low64(quotient), 1);
}

}  // namespace podlimits::resource::quantity_internal
