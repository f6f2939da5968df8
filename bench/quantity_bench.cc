// Parsing and printing the quantities pod specs are made of. Parse must stay on the int64 fast
// path (no bignum, no allocation beyond the Quantity) for these.
#include <benchmark/benchmark.h>

#include <array>
#include <string_view>

#include "resource/quantity.h"

namespace {

using podlimits::resource::Quantity;

constexpr std::array<std::string_view, 4> kTypical = {"500m", "1Gi", "2", "128Mi"};

void BM_QuantityParse(benchmark::State& state) {
  const std::string_view text = kTypical[static_cast<std::size_t>(state.range(0))];
  state.SetLabel(std::string(text));
  for (auto _ : state) {
    auto q = Quantity::Parse(text);
    benchmark::DoNotOptimize(q);
  }
}
BENCHMARK(BM_QuantityParse)->DenseRange(0, kTypical.size() - 1);

// The slow path, for comparison: too many digits for int64, rounded to nano.
void BM_QuantityParseDecimal(benchmark::State& state) {
  for (auto _ : state) {
    auto q = Quantity::Parse("1.23456789012345678901Gi");
    benchmark::DoNotOptimize(q);
  }
}
BENCHMARK(BM_QuantityParseDecimal);

// "500m", "1Gi" and "2" keep their input string; "128Mi" and the sum are canonicalized.
void BM_QuantityString(benchmark::State& state) {
  Quantity q;
  if (state.range(0) < static_cast<std::int64_t>(kTypical.size())) {
    q = *Quantity::Parse(kTypical[static_cast<std::size_t>(state.range(0))]);
  } else {
    q = *Quantity::Parse("1500m");
    q.Add(*Quantity::Parse("250m"));
  }
  state.SetLabel(q.String());
  for (auto _ : state) {
    auto s = q.String();
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_QuantityString)->DenseRange(0, kTypical.size());

void BM_QuantityCmp(benchmark::State& state) {
  const Quantity a = *Quantity::Parse("1536Mi");
  const Quantity b = *Quantity::Parse("1.5Gi");  // decimal form
  const Quantity c = *Quantity::Parse("2G");
  for (auto _ : state) {
    benchmark::DoNotOptimize(a.Cmp(c));
    benchmark::DoNotOptimize(a.Cmp(b));
  }
}
BENCHMARK(BM_QuantityCmp);

}  // namespace
