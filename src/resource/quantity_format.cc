// Quantity::String: upstream's CanonicalizeBytes with AsCanonicalBytes (base 10, exponent a
// multiple of three) and AsCanonicalBase1024Bytes, for both the int64 and the inf.Dec form.
#include <cstdint>
#include <string>
#include <string_view>

#include "resource/quantity.h"
#include "resource/quantity_internal.h"

namespace podlimits::resource {

using quantity_internal::Access;
using quantity_internal::BigDecimal;
using quantity_internal::BigInt;
using quantity_internal::Wrap32;

namespace {

struct Mantissa {
  std::string digits;
  std::int32_t exponent = 0;
  // The int32 exponent wrapped, so digits * 10^exponent is not the value.
  bool wrapped = false;
};

// infDecAmount.AsCanonicalBytes.
Mantissa DecimalMantissa(const BigDecimal& d) {
  BigInt amount = d.coef;
  std::int64_t exact = d.exp;
  std::int32_t exponent = Wrap32(exact);
  while (exponent % 3 != 0) {
    amount *= 10;
    exponent = Wrap32(std::int64_t{exponent} - 1);
    --exact;
  }
  return {quantity_internal::ToDecimalString(amount), exponent, exponent != exact};
}

// int64Amount.AsCanonicalBytes. Unlike the inf.Dec loop it adjusts only once, which differs
// when the int32 exponent wraps.
Mantissa Int64Mantissa(std::int64_t value, std::int32_t scale) {
  auto [amount, times] = quantity_internal::RemoveInt64Factors(value, 10);
  std::int64_t exact = std::int64_t{scale} + times;
  std::int32_t exponent = Wrap32(exact);
  int adjust = 0;
  switch (exponent % 3) {
    case 1:
    case -2:
      adjust = 1;
      break;
    case 2:
    case -1:
      adjust = 2;
      break;
    default:
      break;
  }
  if (adjust > 0) {
    auto [scaled, ok] = quantity_internal::Int64MultiplyScale(amount, adjust == 1 ? 10 : 100);
    if (!ok) return DecimalMantissa(quantity_internal::DecimalFromInt64(value, scale));
    amount = scaled;
    exponent = Wrap32(std::int64_t{exponent} - adjust);
    exact -= adjust;
  }
  return {std::to_string(amount), exponent, exponent != exact};
}

std::optional<std::string_view> DecimalSISuffix(std::int32_t exponent) {
  switch (exponent) {
    case -9:
      return "n";
    case -6:
      return "u";
    case -3:
      return "m";
    case 0:
      return "";
    case 3:
      return "k";
    case 6:
      return "M";
    case 9:
      return "G";
    case 12:
      return "T";
    case 15:
      return "P";
    case 18:
      return "E";
    default:
      return std::nullopt;
  }
}

std::optional<std::string_view> BinarySISuffix(std::int32_t exponent) {
  switch (exponent) {
    case 10:
      return "Ki";
    case 20:
      return "Mi";
    case 30:
      return "Gi";
    case 40:
      return "Ti";
    case 50:
      return "Pi";
    case 60:
      return "Ei";
    default:
      return std::nullopt;
  }
}

struct Base1024 {
  std::string digits;
  std::int64_t exponent = 0;
};

// AsCanonicalBase1024Bytes of an integer-valued amount; nullopt when the integer is too long to
// write out (see quantity_internal.h).
std::optional<Base1024> Base1024Mantissa(const Quantity& rounded) {
  const BigDecimal* big = Access::Big(rounded);
  if (big == nullptr) {
    auto [value, ok] = quantity_internal::AsScaledInt64(Access::Int64Value(rounded),
                                                        Access::Int64Scale(rounded), 0);
    if (ok) {
      auto [amount, times] = quantity_internal::RemoveInt64Factors(value, 1024);
      return Base1024{std::to_string(amount), times};
    }
  }
  const BigDecimal integer = quantity_internal::RoundAwayFromZero(Access::AsDecimal(rounded), 0);
  if (integer.exp < 0 || integer.exp > quantity_internal::kMaxAlignDigits) return std::nullopt;
  BigInt magnitude =
      abs(integer.coef) * quantity_internal::Pow10(static_cast<std::uint64_t>(integer.exp));
  const auto times = static_cast<std::int64_t>(boost::multiprecision::lsb(magnitude)) / 10;
  magnitude >>= static_cast<unsigned>(times * 10);
  if (integer.coef < 0) magnitude = -magnitude;
  return Base1024{quantity_internal::ToDecimalString(magnitude), times};
}

std::string WithSuffix(std::string digits, std::string_view suffix) {
  digits.append(suffix);
  return digits;
}

}  // namespace

std::string Quantity::Canonical(bool* loses_value) const {
  *loses_value = false;
  if (IsZero()) return "0";

  QuantityFormat format = format_;
  Quantity rounded;
  if (format == QuantityFormat::kBinarySI) {
    if (CmpInt64(-1024) > 0 && CmpInt64(1024) < 0) {
      format = QuantityFormat::kDecimalSI;
    } else {
      rounded = *this;
      if (!rounded.RoundUp(0)) format = QuantityFormat::kDecimalSI;
    }
  }

  if (format == QuantityFormat::kBinarySI) {
    if (auto base1024 = Base1024Mantissa(rounded)) {
      // Past Ei (2^70 and up, reachable only by arithmetic) there is no suffix either: since
      // kubernetes#140459 the value is written in DecimalExponent form, like DecimalSI below
      // (1024Ei -> "1180591620717411303424"); before, the base-1024 mantissa was written alone.
      if (const auto suffix = BinarySISuffix(Wrap32(base1024->exponent * 10))) {
        // Parsing caps a BinarySI value at 2^63-1.
        *loses_value = CmpInt64(quantity_internal::kMostPositive) > 0 ||
                       CmpInt64(-quantity_internal::kMostPositive) < 0;
        return WithSuffix(std::move(base1024->digits), *suffix);
      }
    }
    format = QuantityFormat::kDecimalExponent;
  }

  Mantissa mantissa = big_ ? DecimalMantissa(*big_) : Int64Mantissa(value_, scale_);
  // Parsing rounds anything finer than nano up.
  *loses_value = mantissa.wrapped || mantissa.exponent < -9;
  if (format == QuantityFormat::kDecimalSI) {
    // Outside n..E there is no suffix: since kubernetes#140459 the value is
    // written in DecimalExponent form instead ("1000E" -> "1e21", 10^-12 -> "1e-12"); before, the
    // mantissa was written alone ("1").
    if (const auto suffix = DecimalSISuffix(mantissa.exponent)) {
      return WithSuffix(std::move(mantissa.digits), *suffix);
    }
  }
  if (mantissa.exponent == 0) return std::move(mantissa.digits);
  mantissa.digits.push_back('e');
  return WithSuffix(std::move(mantissa.digits), std::to_string(mantissa.exponent));
}

std::string Quantity::String() const {
  if (!cached_.empty()) return cached_;
  bool loses_value = false;
  return Canonical(&loses_value);
}

std::string Quantity::GoValueString() const {
  std::string_view format = "DecimalSI";
  if (format_ == QuantityFormat::kBinarySI) format = "BinarySI";
  if (format_ == QuantityFormat::kDecimalExponent) format = "DecimalExponent";
  // {i int64Amount{value, scale}, d infDecAmount{*inf.Dec}, s string, Format}
  if (big_) {
    bool loses_value = false;
    return "{{0 0} {" + Canonical(&loses_value) + "} " + cached_ + " " + std::string(format) + "}";
  }
  return "{{" + std::to_string(value_) + " " + std::to_string(scale_) + "} {<nil>} " + cached_ +
         " " + std::string(format) + "}";
}

namespace quantity_internal {

bool Access::CanonicalStringLosesValue(const Quantity& q) {
  if (!q.cached_.empty()) return false;
  bool loses_value = false;
  q.Canonical(&loses_value);
  return loses_value;
}

}  // namespace quantity_internal

}  // namespace podlimits::resource
