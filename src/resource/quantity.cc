// Quantity's value operations: construction, projections to int64, comparison and arithmetic.
// Parsing lives in quantity_parse.cc, String() in quantity_format.cc, the LimitRanger ratio
// helpers in quantity_ratio.cc and the number crunching in quantity_decimal.cc.
#include "resource/quantity.h"

#include <utility>

#include "resource/quantity_internal.h"

namespace podlimits::resource {

using quantity_internal::Access;
using quantity_internal::BigDecimal;
using quantity_internal::BigInt;

namespace {

int SignOf(std::int64_t v) {
  return (v > 0) - (v < 0);
}

// Exact order of a*10^as and b*10^bs without leaving 128-bit integers.
int CompareInt64Amounts(std::int64_t a, std::int32_t as, std::int64_t b, std::int32_t bs) {
  const int a_sign = SignOf(a);
  const int b_sign = SignOf(b);
  if (a_sign != b_sign) return a_sign < b_sign ? -1 : 1;
  if (a_sign == 0) return 0;
  __int128 x = a;
  __int128 y = b;
  const std::int64_t diff = std::int64_t{as} - bs;
  if (diff > 18 || diff < -18) {
    // At most 19 digits each: 19 or more orders of magnitude apart decides it.
    return diff > 0 ? a_sign : -a_sign;
  }
  if (diff > 0) x *= quantity_internal::Pow10Int64(static_cast<int>(diff));
  if (diff < 0) y *= quantity_internal::Pow10Int64(static_cast<int>(-diff));
  return (x > y) - (x < y);
}

}  // namespace

namespace quantity_internal {

BigDecimal Access::AsDecimal(const Quantity& q) {
  if (q.big_) return *q.big_;
  return DecimalFromInt64(q.value_, q.scale_);
}

Quantity Access::FromDecimal(BigDecimal d, QuantityFormat format) {
  Quantity q;
  q.big_ = std::make_shared<const BigDecimal>(std::move(d));
  q.format_ = format;
  return q;
}

Quantity Access::FromInt64(std::int64_t value, std::int32_t scale, QuantityFormat format,
                           std::string_view cached) {
  Quantity q;
  q.value_ = value;
  q.scale_ = scale;
  q.format_ = format;
  q.cached_ = cached;
  return q;
}

}  // namespace quantity_internal

Quantity Quantity::NewQuantity(std::int64_t value, QuantityFormat format) {
  return Access::FromInt64(value, 0, format, {});
}

Quantity Quantity::NewMilliQuantity(std::int64_t milli_value, QuantityFormat format) {
  return Access::FromInt64(milli_value, -3, format, {});
}

bool Quantity::IsZero() const {
  return big_ ? big_->coef == 0 : value_ == 0;
}

int Quantity::Sign() const {
  return big_ ? big_->coef.sign() : SignOf(value_);
}

int Quantity::Cmp(const Quantity& y) const {
  if (!big_ && !y.big_) return CompareInt64Amounts(value_, scale_, y.value_, y.scale_);
  const BigDecimal a = Access::AsDecimal(*this);
  const BigDecimal b = Access::AsDecimal(y);
  return quantity_internal::CompareDecimal(a.coef, a.exp, b.coef, b.exp);
}

int Quantity::CmpInt64(std::int64_t y) const {
  if (!big_) return CompareInt64Amounts(value_, scale_, y, 0);
  return quantity_internal::CompareDecimal(big_->coef, big_->exp, BigInt(y), 0);
}

std::int64_t Quantity::ScaledValue(std::int32_t scale) const {
  if (!big_) return quantity_internal::AsScaledInt64(value_, scale_, scale).first;
  // scale.infScale() negates in int32.
  return quantity_internal::DecimalScaledValue(*big_,
                                               quantity_internal::Wrap32(-std::int64_t{scale}));
}

std::int64_t Quantity::Value() const {
  return ScaledValue(0);
}

std::int64_t Quantity::MilliValue() const {
  return ScaledValue(-3);
}

std::optional<std::int64_t> Quantity::AsInt64() const {
  if (big_ || scale_ < 0) return std::nullopt;
  if (scale_ == 0) return value_;
  auto [value, ok] = quantity_internal::PositiveScaleInt64(value_, scale_);
  if (!ok) return std::nullopt;
  return value;
}

namespace {

// int64Amount.Add: false, with a untouched, when the sum needs the decimal form.
bool AddInt64Amounts(std::int64_t& a, std::int32_t& as, std::int64_t b, std::int32_t bs) {
  using quantity_internal::Int64Add;
  using quantity_internal::PositiveScaleInt64;
  using quantity_internal::Wrap32;
  if (b == 0) return true;
  if (a == 0) {
    a = b;
    as = bs;
    return true;
  }
  if (as == bs) {
    auto [sum, ok] = Int64Add(a, b);
    if (!ok) return false;
    a = sum;
    return true;
  }
  // The scale difference is int32 arithmetic upstream and may wrap.
  if (as > bs) {
    auto [scaled, scaled_ok] = PositiveScaleInt64(a, Wrap32(std::int64_t{as} - bs));
    if (!scaled_ok) return false;
    auto [sum, ok] = Int64Add(scaled, b);
    if (!ok) return false;
    a = sum;
    as = bs;
    return true;
  }
  auto [scaled, scaled_ok] = PositiveScaleInt64(b, Wrap32(std::int64_t{bs} - as));
  if (!scaled_ok) return false;
  auto [sum, ok] = Int64Add(a, scaled);
  if (!ok) return false;
  a = sum;
  return true;
}

}  // namespace

void Quantity::Add(const Quantity& y) {
  cached_.clear();
  if (!big_ && !y.big_) {
    if (value_ == 0) format_ = y.format_;
    if (AddInt64Amounts(value_, scale_, y.value_, y.scale_)) return;
  } else if (IsZero()) {
    format_ = y.format_;
  }
  BigDecimal sum = quantity_internal::AddDecimal(Access::AsDecimal(*this), Access::AsDecimal(y));
  big_ = std::make_shared<const BigDecimal>(std::move(sum));
  value_ = 0;
  scale_ = 0;
}

void Quantity::Sub(const Quantity& y) {
  cached_.clear();
  if (IsZero()) format_ = y.format_;
  // Upstream negates y's int64 value with wrap-around (MinInt64 stays MinInt64).
  if (!big_ && !y.big_ &&
      AddInt64Amounts(value_, scale_, quantity_internal::WrapNeg(y.value_), y.scale_)) {
    return;
  }
  BigDecimal negated = Access::AsDecimal(y);
  negated.coef = -negated.coef;
  BigDecimal difference = quantity_internal::AddDecimal(Access::AsDecimal(*this), negated);
  big_ = std::make_shared<const BigDecimal>(std::move(difference));
  value_ = 0;
  scale_ = 0;
}

bool Quantity::RoundUp(std::int32_t scale) {
  if (big_) {
    cached_.clear();
    BigDecimal rounded = quantity_internal::RoundAwayFromZero(
        *big_, quantity_internal::Wrap32(-std::int64_t{scale}));
    const bool exact =
        quantity_internal::CompareDecimal(rounded.coef, rounded.exp, big_->coef, big_->exp) == 0;
    big_ = std::make_shared<const BigDecimal>(std::move(rounded));
    return exact;
  }
  // Already coarse enough: upstream keeps the cached string too.
  if (scale_ >= scale) return true;
  cached_.clear();
  auto [value, exact] = quantity_internal::NegativeScaleInt64(
      value_, quantity_internal::Wrap32(std::int64_t{scale} - scale_));
  value_ = value;
  scale_ = scale;
  return exact;
}

}  // namespace podlimits::resource
