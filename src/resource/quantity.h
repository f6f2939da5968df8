// Kubernetes' resource.Quantity (k8s.io/apimachinery/pkg/api/resource), byte-compatible with the
// apiserver: the same accepted inputs, the same three error texts, the same String() bytes
// (including upstream's quirks) and the same int64 projections.
//
// The upstream version matched is the apimachinery snapshot described in
// shared/reference/quantity_validation.md §1 (2026-07-23) plus PR #140459 (merged after that
// snapshot: a DecimalSI or BinarySI value without a suffix for its size is written in "e"
// notation): the input-string cache of kubernetes#138165 is reproduced, and Value()/MilliValue()
// wrap instead of saturating. Arithmetic on Scale is done in int32 with
// wrap-around, as Go does, wherever Go answers promptly. Where upstream would panic (integer
// division by zero, index out of range) or would have to write out ~10^(2^31) in digits and never
// answer, this class computes the exact result instead; see quantity_internal.h for the list.
#pragma once

#include <compare>
#include <cstdint>
#include <expected>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace podlimits::resource {

namespace quantity_internal {
struct BigDecimal;
struct Access;
}  // namespace quantity_internal

enum class QuantityFormat : std::uint8_t { kDecimalSI, kBinarySI, kDecimalExponent };

// ErrFormatWrong, ErrNumeric and ErrSuffix of upstream, in that order.
enum class QuantityError : std::uint8_t { kFormatWrong, kNumeric, kSuffix };

// The exact upstream error text, e.g. "unable to parse quantity's suffix".
std::string_view Message(QuantityError error);

// resource.MaxMilliValue: the largest Value() whose MilliValue() still fits an int64.
inline constexpr std::int64_t kMaxMilliValue = std::numeric_limits<std::int64_t>::max() / 1000;

class Quantity {
 public:
  // Zero. Upstream's zero value has an empty Format, which only ever shows when it is the
  // receiver of Add/Sub, and those adopt the other operand's format; kDecimalSI stands in.
  Quantity() = default;

  // resource.ParseQuantity. No whitespace is trimmed.
  static std::expected<Quantity, QuantityError> Parse(std::string_view text);
  // What Quantity.UnmarshalJSON does with an already-unquoted JSON string or number (YAML
  // scalars reach it the same way): strip Go's unicode.IsSpace characters from both ends, then
  // Parse. JSON null is the caller's business: it decodes to a zero Quantity.
  static std::expected<Quantity, QuantityError> ParseJSONScalar(std::string_view text);

  static Quantity NewQuantity(std::int64_t value, QuantityFormat format);
  // value/1000.
  static Quantity NewMilliQuantity(std::int64_t milli_value, QuantityFormat format);

  // The format remembered from parsing (a BinarySI value strictly between 0 and 1 becomes
  // DecimalSI); String() may still print another one, see there.
  QuantityFormat Format() const { return format_; }

  // The canonical form ("1500m", "1536Mi", "1e3"), or the parsed input itself when upstream's
  // cache kept it ("01", "1E3", "100.035k"). A BinarySI value in (-1024, 1024) or with a
  // fraction prints as DecimalSI; a DecimalSI exponent outside -9..18, or a BinarySI value past
  // Ei, prints as DecimalExponent ("1000E" -> "1e21", kubernetes#140459).
  std::string String() const;

  // What Go's fmt prints for a resource.Quantity value (not a pointer, so not String()) with %v,
  // as the kubelet's messages do: "{{40000 0} {<nil>}  DecimalSI}" (int64 amount and scale, the
  // inf.Dec pointer, the cached string, the format). A value held as a big decimal prints its
  // canonical form where Go would print the pointer.
  std::string GoValueString() const;

  // ceil(q) and ceil(q*1000) for positive values. Negative values and overflow behave as
  // upstream's: away from zero in the int64 form, ceil(x)+1 for negative non-integers in the
  // decimal form, and silent wrap-around (or 0) on overflow. Compare against kMaxMilliValue
  // (or use Cmp) before trusting them.
  std::int64_t Value() const;
  std::int64_t MilliValue() const;

  // The integer value when the int64 fast form holds it at scale >= 0 without overflow.
  std::optional<std::int64_t> AsInt64() const;

  // Exact numeric order, -1/0/1; Format and the cached string are ignored.
  int Cmp(const Quantity& y) const;
  int CmpInt64(std::int64_t y) const;
  int Sign() const;
  bool IsZero() const;

  // Exact; a zero receiver takes y's format. The result prints canonically (the cache is
  // dropped).
  void Add(const Quantity& y);
  void Sub(const Quantity& y);

  // Rounds away from zero to a multiple of 10^scale (RoundUp(-3): milli); false when that
  // changed the value. API defaulting does RoundUp(-3) on every ResourceList entry.
  bool RoundUp(std::int32_t scale);

  // sign(|limit| - |request| * max_ratio), computed exactly: > 0 means limit/request exceeds
  // max_ratio. This is LimitRanger's exceedsAllowed (exact variant, PR #141348, which compares
  // magnitudes); for request == 0 it is the sign of |limit|.
  static int CmpRatio(const Quantity& limit, const Quantity& request, const Quantity& max_ratio);

  // The "provided ratio is %s" text of LimitRanger's exact variant (ratioString): |limit| /
  // |request| rounded half-to-even to six decimals ("2.000000", "0.333333"), or, when the two
  // quantities' decimal scales are more than 40 apart, a mantissa in [1,10) with six decimals
  // and an exponent ("1.000000e43"). The release variant printed float64(l)/float64(r) with %f
  // instead; for ordinary quantities the two texts agree. Requires request != 0 (returns "" then).
  static std::string FormatRatioForMessage(const Quantity& limit, const Quantity& request);

  // Semantic (apiequality) equality and order: Cmp, so 1000m == 1 although they print
  // differently.
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.Cmp(b) == 0; }
  friend std::weak_ordering operator<=>(const Quantity& a, const Quantity& b) {
    return a.Cmp(b) <=> 0;
  }

 private:
  friend struct quantity_internal::Access;

  std::int64_t ScaledValue(std::int32_t scale) const;
  std::string Canonical(bool* loses_value) const;

  // Upstream keeps either an int64Amount (value_ * 10^scale_) or an inf.Dec; which one holds a
  // number is observable (negative Value(), AsInt64), so both forms are kept. big_ is null in
  // the int64 form.
  std::int64_t value_ = 0;
  std::int32_t scale_ = 0;
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
  std::shared_ptr<const quantity_internal::BigDecimal> big_;
  // Upstream's q.s: the input string when parsing decided it was already canonical.
  std::string cached_;
};

}  // namespace podlimits::resource
