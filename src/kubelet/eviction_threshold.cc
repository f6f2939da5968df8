#include "kubelet/eviction_threshold.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "api/field.h"
#include "base/error.h"

namespace podlimits::kubelet {
namespace {

// signalToResource's keys (pkg/kubelet/eviction/helpers.go): the signals validSignal accepts.
constexpr std::array<std::string_view, 9> kSignals = {
    "memory.available",      "allocatableMemory.available", "nodefs.available",
    "nodefs.inodesFree",     "imagefs.available",           "imagefs.inodesFree",
    "containerfs.available", "containerfs.inodesFree",      kSignalPIDAvailable};

bool ValidSignal(std::string_view s) {
  for (auto k : kSignals) {
    if (k == s) return true;
  }
  return false;
}

// strconv.ParseFloat(s, 32) for the decimal forms a threshold can take. Hex floats, "inf" and
// "nan" are not percentages anyone writes; they get ParseFloat's "invalid syntax" too.
Result<float> ParseFloat32(std::string_view s) {
  auto syntax = [&] {
    return fmt::format("strconv.ParseFloat: parsing {}: invalid syntax", field::GoQuote(s));
  };
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  bool digits = false;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, digits = true;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, digits = true;
  }
  if (!digits) return Failure(syntax());
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    bool exp_digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, exp_digits = true;
    if (!exp_digits) return Failure(syntax());
  }
  if (i != s.size()) return Failure(syntax());
  std::string owned(s);
  errno = 0;
  float v = std::strtof(owned.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(v)) {
    return Failure(
        fmt::format("strconv.ParseFloat: parsing {}: value out of range", field::GoQuote(s)));
  }
  return v;
}

}  // namespace

Result<std::optional<EvictionThreshold>> ParseThresholdStatement(std::string_view signal,
                                                                 std::string_view value) {
  if (!ValidSignal(signal)) {
    return Failure(fmt::format("unsupported eviction signal {}", signal));
  }
  EvictionThreshold t{std::string(signal), std::nullopt, 0, std::string(value)};
  if (value.ends_with('%')) {
    if (value == "0%" || value == "100%") return std::nullopt;
    std::string_view number = value;
    while (number.ends_with('%')) number.remove_suffix(1);  // strings.TrimRight(input, "%")
    auto f = ParseFloat32(number);
    if (!f) return std::unexpected(f.error());
    t.percentage = *f / 100;
    if (t.percentage < 0) {
      return Failure(
          fmt::format("eviction percentage threshold {} must be >= 0%: {}", signal, value));
    }
    // Compared as a fraction (upstream fixed its old `> 100` comparison of the fraction).
    if (t.percentage > 1) {
      return Failure(
          fmt::format("eviction percentage threshold {} must be <= 100%: {}", signal, value));
    }
    return t;
  }
  auto q = api::Quantity::Parse(value);
  if (!q) return Failure(std::string(api::Message(q.error())));
  if (q->Sign() <= 0) {
    return Failure(fmt::format("eviction threshold {} must be positive: {}", signal, q->String()));
  }
  t.quantity = *q;
  return t;
}

Result<std::vector<EvictionThreshold>> ParseThresholdStatements(
    const std::map<std::string, std::string>& statements) {
  std::vector<EvictionThreshold> out;
  for (const auto& [signal, value] : statements) {
    auto t = ParseThresholdStatement(signal, value);
    if (!t) return std::unexpected(t.error());
    if (*t) out.push_back(std::move(**t));
  }
  return out;
}

std::int64_t ThresholdQuantity(const EvictionThreshold& t, std::int64_t capacity) {
  if (t.quantity) return t.quantity->Value();
  // float64(capacity.Value()) * float64(percentage): the float32 is widened, not re-parsed.
  return static_cast<std::int64_t>(static_cast<double>(capacity) *
                                   static_cast<double>(t.percentage));
}

bool ThresholdMet(const EvictionThreshold& t, std::int64_t capacity, std::int64_t available) {
  return ThresholdQuantity(t, capacity) > available;
}

}  // namespace podlimits::kubelet
