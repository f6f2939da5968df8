#include "kubelet/eviction/eviction_threshold.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "base/error.h"
#include "codec/go_duration.h"
#include "field/field.h"

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

// parsePercentage: "5%" -> 0.05, the number as float32 with every trailing '%' trimmed.
Result<float> ParsePercentage(std::string_view value) {
  while (value.ends_with('%')) value.remove_suffix(1);  // strings.TrimRight(input, "%")
  auto f = ParseFloat32(value);
  if (!f) return std::unexpected(f.error());
  return *f / 100;
}

}  // namespace

Result<std::optional<EvictionThreshold>> ParseThresholdStatement(std::string_view signal,
                                                                 std::string_view value) {
  if (!ValidSignal(signal)) {
    return Failure(fmt::format("unsupported eviction signal {}", signal));
  }
  EvictionThreshold t{std::string(signal), std::nullopt, 0, std::string(value), {}, std::nullopt};
  if (value.ends_with('%')) {
    if (value == "0%" || value == "100%") return std::nullopt;
    auto percentage = ParsePercentage(value);
    if (!percentage) return std::unexpected(percentage.error());
    t.percentage = *percentage;
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
  auto q = resource::Quantity::Parse(value);
  if (!q) return Failure(std::string(resource::Message(q.error())));
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

Result<std::map<std::string, std::chrono::nanoseconds>> ParseGracePeriods(
    const std::map<std::string, std::string>& statements) {
  std::map<std::string, std::chrono::nanoseconds> out;
  for (const auto& [signal, value] : statements) {
    if (!ValidSignal(signal)) return Failure(fmt::format("unsupported eviction signal {}", signal));
    auto d = codec::ParseGoDuration(value);
    if (!d) return std::unexpected(d.error());
    if (d->count() < 0) {
      return Failure(fmt::format(
          "invalid eviction grace period specified: {}, must be a positive value", value));
    }
    out[signal] = *d;
  }
  return out;
}

Result<std::map<std::string, ThresholdValue>> ParseMinimumReclaims(
    const std::map<std::string, std::string>& statements) {
  std::map<std::string, ThresholdValue> out;
  for (const auto& [signal, value] : statements) {
    if (!ValidSignal(signal)) return Failure(fmt::format("unsupported eviction signal {}", signal));
    if (value.ends_with('%')) {
      auto parsed = ParsePercentage(value);
      if (!parsed) return std::unexpected(parsed.error());
      const float percentage = *parsed;
      if (percentage <= 0) {
        return Failure(fmt::format("eviction percentage minimum reclaim {} must be positive: {}",
                                   signal, value));
      }
      out[signal] = ThresholdValue{std::nullopt, percentage};
      continue;
    }
    auto q = resource::Quantity::Parse(value);
    if (!q) return Failure(std::string(resource::Message(q.error())));
    if (q->Sign() < 0) {
      return Failure(fmt::format("negative eviction minimum reclaim specified for {}", signal));
    }
    out[signal] = ThresholdValue{*q, 0};
  }
  return out;
}

Result<void> CompleteThresholds(std::vector<EvictionThreshold>& hard,
                                std::vector<EvictionThreshold>& soft,
                                const std::map<std::string, std::chrono::nanoseconds>& grace,
                                const std::map<std::string, ThresholdValue>& min_reclaim) {
  auto reclaim = [&](const std::string& signal) -> std::optional<ThresholdValue> {
    auto it = min_reclaim.find(signal);
    return it == min_reclaim.end() ? std::nullopt : std::optional(it->second);
  };
  for (auto& t : hard) {
    t.grace_period = std::chrono::nanoseconds(0);
    t.min_reclaim = reclaim(t.signal);
  }
  for (auto& t : soft) {
    auto it = grace.find(t.signal);
    if (it == grace.end()) {
      return Failure(fmt::format(
          "grace period must be specified for the soft eviction threshold {}", t.signal));
    }
    t.grace_period = it->second;
    t.min_reclaim = reclaim(t.signal);
  }
  return {};
}

std::int64_t ThresholdQuantity(const ThresholdValue& v, std::int64_t capacity) {
  if (v.quantity) return v.quantity->Value();
  // float64(capacity.Value()) * float64(percentage): the float32 is widened, not re-parsed.
  return static_cast<std::int64_t>(static_cast<double>(capacity) *
                                   static_cast<double>(v.percentage));
}

std::int64_t ThresholdQuantity(const EvictionThreshold& t, std::int64_t capacity) {
  return ThresholdQuantity(ThresholdValue{t.quantity, t.percentage}, capacity);
}

resource::Quantity ThresholdQuantityValue(const EvictionThreshold& t, std::int64_t capacity) {
  if (t.quantity) return *t.quantity;
  return resource::Quantity::NewQuantity(ThresholdQuantity(t, capacity), resource::QuantityFormat::kBinarySI);
}

bool ThresholdMet(const EvictionThreshold& t, std::int64_t capacity, std::int64_t available,
                  bool enforce_min_reclaim) {
  std::int64_t quantity = ThresholdQuantity(t, capacity);
  if (enforce_min_reclaim && t.min_reclaim) quantity += ThresholdQuantity(*t.min_reclaim, capacity);
  return quantity > available;
}

}  // namespace podlimits::kubelet
