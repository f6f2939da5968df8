// Internals shared by quantity*.cc (and the fuzz target): the arbitrary-precision form and
// Go-semantics integer helpers. Not part of the api library's interface.
//
// Where this code deliberately differs from upstream (all unreachable in practice; upstream
// would not answer at all):
// * Cmp is exact for every pair. Upstream's int64Amount.Cmp divides by zero (panics) when two
//   scales are more than 2^31 apart, and inf.Dec.Cmp writes the scale difference out in digits.
// * Cmp does not convert its receiver to the decimal form, as upstream's pointer-receiver Cmp
//   does as a side effect (which can change a later negative Value()).
// * Rounding whose int32 shift is exactly -2^31 (upstream indexes exp10cache out of range)
//   divides by 10^(2^31).
// * An Add/Sub of two decimals whose digits are more than kMaxAlignDigits apart, with no overlap,
//   keeps the larger operand (upstream writes out the gap in digits). A BinarySI String() that
//   would need more than kMaxAlignDigits digits prints in DecimalExponent form instead, and so
//   does a fixed-point ratio message of that size.
#pragma once

// GCC 12 reports a false -Wmaybe-uninitialized inside cpp_int's move constructor when
// sanitizers are on.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/multiprecision/cpp_int.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "resource/quantity.h"

namespace podlimits::resource::quantity_internal {

using BigInt = boost::multiprecision::cpp_int;

inline constexpr std::int64_t kMostPositive = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kMostNegative = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kMaxAlignDigits = 100000;

// The inf.Dec form. The number is coef * 10^exp with coef free of factors of ten (or zero), so
// that huge exponents cost nothing. scale is the inf.Dec scale upstream's value would carry (its
// unscaled integer is coef * 10^(exp + scale), exp + scale >= 0); only the overflow behaviour
// of Value()/MilliValue() and the ratio message format depend on it.
struct BigDecimal {
  BigInt coef;
  std::int64_t exp = 0;
  std::int32_t scale = 0;
};

// ---- Go integer semantics (math.go) ----

// Go's int32 conversion: keep the low 32 bits.
inline std::int32_t Wrap32(std::int64_t v) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)));
}
inline std::int64_t WrapAdd(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
inline std::int64_t WrapMul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
inline std::int64_t WrapNeg(std::int64_t a) {
  return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(a));
}

std::int64_t Pow10Int64(int n);  // 0 <= n <= 18

std::pair<std::int64_t, bool> Int64Add(std::int64_t a, std::int64_t b);
std::pair<std::int64_t, bool> Int64Multiply(std::int64_t a, std::int64_t b);
// int64MultiplyScale (and its 10/100/1000 variants): a*b for b > 1; the wrapped product on
// overflow, with false.
std::pair<std::int64_t, bool> Int64MultiplyScale(std::int64_t a, std::int64_t b);
std::pair<std::int64_t, bool> PositiveScaleInt64(std::int64_t base, std::int32_t scale);
std::pair<std::int64_t, bool> NegativeScaleInt64(std::int64_t base, std::int32_t scale);
// removeInt64Factors: value == result * base^times, keeping MinInt64's wrap-around quirk.
std::pair<std::int64_t, std::int32_t> RemoveInt64Factors(std::int64_t value, std::int64_t base);
// int64Amount.AsScaledInt64 of this upstream version (no saturation).
std::pair<std::int64_t, bool> AsScaledInt64(std::int64_t value, std::int32_t scale,
                                            std::int32_t to_scale);

// ---- arbitrary precision ----

// 10^n; callers keep n within the digits they are about to write out anyway.
BigInt Pow10(std::uint64_t n);
// Number of decimal digits of |x|, x != 0.
std::int64_t DigitCount(const BigInt& x);
// Removes trailing decimal zeros from x (x != 0) and returns how many there were.
std::int64_t StripTrailingZeros(BigInt& x);
// x mod 2^64 as Go's big.Int.Int64() returns it.
std::int64_t Low64(const BigInt& x);
// big.Int.String(). (cpp_int's own str() trips GCC 12's -Wrestrict false positive at -O3.)
std::string ToDecimalString(const BigInt& x);

// An inf.Dec with unscaled value `unscaled` and scale `scale`.
BigDecimal DecimalFromUnscaled(BigInt unscaled, std::int32_t scale);
// int64Amount.AsDec.
BigDecimal DecimalFromInt64(std::int64_t value, std::int32_t scale);
// inf.Dec.Round(x, target_scale, inf.RoundUp), including the int32 arithmetic on the shift.
BigDecimal RoundAwayFromZero(const BigDecimal& x, std::int32_t target_scale);
// Exact comparison of a.coef*10^a.exp with b.coef*10^b.exp.
int CompareDecimal(const BigInt& a_coef, std::int64_t a_exp, const BigInt& b_coef,
                   std::int64_t b_exp);
// inf.Dec.Add (exact; scale = max of the scales).
BigDecimal AddDecimal(const BigDecimal& a, const BigDecimal& b);
// scale_int.go scaledValue(unscaled, scale, new_scale), overflow behaviour included.
std::int64_t DecimalScaledValue(const BigDecimal& d, std::int32_t new_scale);

// Private access for the other translation units and the fuzz target.
struct Access {
  static const BigDecimal* Big(const Quantity& q) { return q.big_.get(); }
  static std::int64_t Int64Value(const Quantity& q) { return q.value_; }
  static std::int32_t Int64Scale(const Quantity& q) { return q.scale_; }
  static BigDecimal AsDecimal(const Quantity& q);
  static Quantity FromDecimal(BigDecimal d, QuantityFormat format);
  static Quantity FromInt64(std::int64_t value, std::int32_t scale, QuantityFormat format,
                            std::string_view cached);
  // True when reparsing String() cannot give back the same number because of an upstream quirk
  // (no DecimalSI suffix beyond E, an exponent that wrapped in int32, a binary suffix beyond Ei,
  // BinarySI above 2^63-1, which parsing caps, or sub-nano precision, which parsing rounds).
  static bool CanonicalStringLosesValue(const Quantity& q);
};

}  // namespace podlimits::resource::quantity_internal
