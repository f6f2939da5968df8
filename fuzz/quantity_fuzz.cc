// libFuzzer target for Quantity: anything that parses must print, reprint and compute without
// crashing, and String() must parse back to the same number except where upstream's own
// String() is known to lose it (Access::CanonicalStringLosesValue says when).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "resource/quantity.h"
#include "resource/quantity_internal.h"

namespace {

using podlimits::resource::Quantity;
using podlimits::resource::quantity_internal::Access;

[[noreturn]] void Fail(const char* what, std::string_view input, const Quantity& q) {
  std::fprintf(stderr, "quantity_fuzz: %s\n  input: \"%.*s\"\n  String(): \"%s\"\n", what,
               static_cast<int>(input.size()), input.data(), q.String().c_str());
  std::abort();
}

void CheckRoundTrip(const Quantity& q, std::string_view input) {
  const std::string text = q.String();
  auto back = Quantity::Parse(text);
  if (!back) Fail("String() does not parse", input, q);
  if (Access::CanonicalStringLosesValue(q)) return;
  if (back->Cmp(q) != 0) Fail("String() parses to another number", input, q);
  if (back->String() != text) Fail("String() of the reparsed quantity differs", input, q);
}

void Exercise(const Quantity& q, std::string_view input) {
  CheckRoundTrip(q, input);

  const Quantity zero;
  if (q.Sign() != q.Cmp(zero) || q.IsZero() != (q.Sign() == 0)) Fail("Sign/IsZero", input, q);
  if (q.Cmp(q) != 0 || !(q == q)) Fail("Cmp with itself", input, q);
  (void)q.Value();
  (void)q.MilliValue();
  if (auto v = q.AsInt64(); v && q.CmpInt64(*v) != 0) Fail("AsInt64", input, q);

  Quantity twice = q;
  twice.Add(q);
  if (twice.Cmp(q) != q.Sign()) Fail("q+q against q", input, q);
  CheckRoundTrip(twice, input);
  Quantity back = twice;
  back.Sub(q);
  if (back.Cmp(q) != 0) Fail("(q+q)-q", input, q);
  Quantity none = q;
  none.Sub(q);
  if (!none.IsZero()) Fail("q-q", input, q);
  (void)twice.Value();
  (void)twice.MilliValue();

  for (std::int32_t scale : {-3, 0}) {
    Quantity rounded = q;
    const bool exact = rounded.RoundUp(scale);
    // Away from zero: the magnitude never shrinks.
    if (exact != (rounded.Cmp(q) == 0) || rounded.Cmp(q) * q.Sign() < 0) {
      Fail("RoundUp", input, q);
    }
    (void)rounded.String();
  }

  const Quantity one = Quantity::NewQuantity(1, podlimits::resource::QuantityFormat::kDecimalSI);
  const int ratio = Quantity::CmpRatio(q, one, q);
  if (ratio != (q.Sign() < 0 ? 1 : 0)) Fail("CmpRatio(q, 1, q)", input, q);
  if (!q.IsZero() && Quantity::FormatRatioForMessage(q, q) != "1.000000") {
    Fail("FormatRatioForMessage(q, q)", input, q);
  }
  if (!q.IsZero()) {
    // Mixed magnitudes: must answer quickly whatever the exponents.
    (void)Quantity::FormatRatioForMessage(one, q);
    (void)Quantity::FormatRatioForMessage(q, one);
    (void)Quantity::CmpRatio(one, q, twice);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto q = Quantity::Parse(input)) Exercise(*q, input);
  if (auto q = Quantity::ParseJSONScalar(input)) (void)q->String();
  return 0;
}
