// Eviction thresholds from evictionHard / evictionSoft, parsed as the kubelet's
// pkg/kubelet/eviction/helpers.go parseThresholdStatement does (messages verbatim).
//
// podlimits runs no eviction manager; it parses every signal so that a config the kubelet would
// refuse is refused here too, and keeps the `pid.available` threshold, which `node-info` reports
// against the live task count (seed 002).
#pragma once

#include <cstdint>
#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/quantity.h"
#include "base/error.h"

namespace podlimits::kubelet {

inline constexpr std::string_view kSignalPIDAvailable = "pid.available";

struct EvictionThreshold {
  std::string signal;
  // Exactly one of the two: an absolute quantity, or a fraction of capacity in (0, 1).
  std::optional<api::Quantity> quantity;
  float percentage = 0;  // float32, as upstream stores it
  std::string text;      // the value as written ("1000", "5%")

  bool operator==(const EvictionThreshold&) const = default;
};

// One signal's value. std::nullopt (no threshold) for "0%" and "100%", which upstream ignores.
// Errors: `unsupported eviction signal foo`, a Quantity parse error, `strconv.ParseFloat: ...`,
// `eviction percentage threshold pid.available must be >= 0%: -5%`,
// `eviction percentage threshold pid.available must be <= 100%: 150%`,
// `eviction threshold pid.available must be positive: 0`.
Result<std::optional<EvictionThreshold>> ParseThresholdStatement(std::string_view signal,
                                                                 std::string_view value);

// Every entry of an evictionHard/evictionSoft map, in key order; stops at the first error.
Result<std::vector<EvictionThreshold>> ParseThresholdStatements(
    const std::map<std::string, std::string>& statements);

// GetThresholdQuantity: the absolute value, or int64(capacity * percentage) truncated.
std::int64_t ThresholdQuantity(const EvictionThreshold& t, std::int64_t capacity);

// thresholdsMet for a LessThan signal: met when available < threshold.
bool ThresholdMet(const EvictionThreshold& t, std::int64_t capacity, std::int64_t available);

}  // namespace podlimits::kubelet
