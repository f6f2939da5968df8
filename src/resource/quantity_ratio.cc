// LimitRanger's maxLimitRequestRatio helpers, exact variant (kubernetes PR #141348):
// exceedsAllowed and ratioString of plugin/pkg/admission/limitranger/admission.go.
#include <cstdint>
#include <string>

#include "resource/quantity.h"
#include "resource/quantity_internal.h"

namespace podlimits::resource {

using quantity_internal::Access;
using quantity_internal::BigDecimal;
using quantity_internal::BigInt;
using quantity_internal::DigitCount;
using quantity_internal::Pow10;

namespace {

// The distance in decimal scales beyond which upstream stops printing six fixed decimals.
constexpr std::int64_t kRatioFoldLimit = 40;

// len(x.Text(10)) for x >= 0.
std::int64_t TextLength(const BigInt& x) {
  return x == 0 ? 1 : DigitCount(x);
}

// inf's QuoRound(num, den, 0, RoundHalfEven) for num >= 0, den > 0.
BigInt DivideHalfEven(const BigInt& num, const BigInt& den) {
  BigInt quotient;
  BigInt remainder;
  boost::multiprecision::divide_qr(num, den, quotient, remainder);
  const int c = BigInt(remainder * 2).compare(den);
  if (c > 0 || (c == 0 && boost::multiprecision::bit_test(quotient, 0))) ++quotient;
  return quotient;
}

// inf.Dec.String of units at scale 6.
std::string SixDecimals(const BigInt& units) {
  std::string digits = quantity_internal::ToDecimalString(units);
  if (digits.size() <= 6) digits.insert(0, 7 - digits.size(), '0');
  digits.insert(digits.size() - 6, 1, '.');
  return digits;
}

}  // namespace

int Quantity::CmpRatio(const Quantity& limit, const Quantity& request, const Quantity& max_ratio) {
  const BigDecimal l = Access::AsDecimal(limit);
  const BigDecimal r = Access::AsDecimal(request);
  const BigDecimal x = Access::AsDecimal(max_ratio);
  // The product's exponent is kept in 64 bits (upstream's point: inf.Dec.Mul would wrap it).
  return quantity_internal::CompareDecimal(abs(l.coef), l.exp, abs(r.coef) * x.coef, r.exp + x.exp);
}

std::string Quantity::FormatRatioForMessage(const Quantity& limit, const Quantity& request) {
  if (request.IsZero()) return {};
  const BigDecimal l = Access::AsDecimal(limit);
  const BigDecimal r = Access::AsDecimal(request);
  const BigInt l_coef = abs(l.coef);
  const BigInt r_coef = abs(r.coef);
  const std::int64_t exponent = l.exp - r.exp;  // ratio = l_coef / r_coef * 10^exponent

  // Which text upstream picks depends on the inf.Dec scales, not on the value.
  const std::int64_t scale_gap = std::int64_t{r.scale} - l.scale;
  if (scale_gap >= -kRatioFoldLimit && scale_gap <= kRatioFoldLimit) {
    const std::int64_t shift = exponent + 6;
    // ratio * 10^6 < 10^(magnitude + 1); below 0.1 it rounds to 0 without writing out 10^-shift.
    const std::int64_t magnitude = TextLength(l_coef) - TextLength(r_coef) + shift;
    if (magnitude <= -2) return "0.000000";
    if (magnitude <= quantity_internal::kMaxAlignDigits) {
      BigInt num = l_coef;
      BigInt den = r_coef;
      if (shift >= 0) num *= Pow10(static_cast<std::uint64_t>(shift));
      if (shift < 0) den *= Pow10(static_cast<std::uint64_t>(-shift));
      return SixDecimals(DivideHalfEven(num, den));
    }
  }

  // A mantissa in [1,10) with six decimals, and the exponent.
  BigInt num = l_coef;
  BigInt den = r_coef;
  std::int64_t shift = TextLength(den) - TextLength(num);
  if (shift >= 0) num *= Pow10(static_cast<std::uint64_t>(shift));
  if (shift < 0) den *= Pow10(static_cast<std::uint64_t>(-shift));
  if (num < den) {
    num *= 10;
    ++shift;
  }
  BigInt units = DivideHalfEven(num * Pow10(6), den);
  if (units >= Pow10(7)) {
    // Rounding carried the mantissa to 10.000000.
    units = DivideHalfEven(units, 10);
    --shift;
  }
  const std::int64_t final_exponent = exponent - shift;
  std::string text = SixDecimals(units);
  if (final_exponent != 0) {
    text.push_back('e');
    text.append(std::to_string(final_exponent));
  }
  return text;
}

}  // namespace podlimits::resource
