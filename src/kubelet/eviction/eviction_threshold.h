// Eviction thresholds from evictionHard / evictionSoft, parsed as the kubelet's
// pkg/kubelet/eviction/helpers.go parseThresholdStatement does (messages verbatim).
//
// Every signal is parsed so that a config the kubelet would refuse is refused here too; the
// eviction manager (eviction_manager.h) observes `pid.available` only, the signal of seed 002.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "resource/quantity.h"

namespace podlimits::kubelet {

inline constexpr std::string_view kSignalPIDAvailable = "pid.available";

// A threshold's or a minimum reclaim's value (evictionapi.ThresholdValue).
struct ThresholdValue {
  // Exactly one of the two: an absolute quantity, or a fraction of capacity.
  std::optional<resource::Quantity> quantity;
  float percentage = 0;  // float32, as upstream stores it

  bool operator==(const ThresholdValue&) const = default;
};

struct EvictionThreshold {
  std::string signal;
  // Exactly one of the two: an absolute quantity, or a fraction of capacity in (0, 1).
  std::optional<resource::Quantity> quantity;
  float percentage = 0;  // float32, as upstream stores it
  std::string text;      // the value as written ("1000", "5%")
  // 0 for a hard threshold (isHardEvictionThreshold); a soft one's evictionSoftGracePeriod.
  std::chrono::nanoseconds grace_period{0};
  // evictionMinimumReclaim for the signal: once met, the threshold holds until available is
  // at least threshold + this.
  std::optional<ThresholdValue> min_reclaim;

  bool Hard() const { return grace_period.count() == 0; }
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

// evictionSoftGracePeriod (parseGracePeriods): Go durations, each >= 0. Errors:
// `unsupported eviction signal foo`, `time: invalid duration "x"`,
// `invalid eviction grace period specified: -1s, must be a positive value`.
Result<std::map<std::string, std::chrono::nanoseconds>> ParseGracePeriods(
    const std::map<std::string, std::string>& statements);

// evictionMinimumReclaim (parseMinimumReclaims). Errors: `unsupported eviction signal foo`,
// `eviction percentage minimum reclaim pid.available must be positive: 0%`,
// `negative eviction minimum reclaim specified for pid.available`, a Quantity parse error.
Result<std::map<std::string, ThresholdValue>> ParseMinimumReclaims(
    const std::map<std::string, std::string>& statements);

// parseThresholdConfig's joining: hard thresholds get grace 0, soft ones their grace period
// (`grace period must be specified for the soft eviction threshold pid.available` when
// missing), both their signal's minimum reclaim.
Result<void> CompleteThresholds(std::vector<EvictionThreshold>& hard,
                                std::vector<EvictionThreshold>& soft,
                                const std::map<std::string, std::chrono::nanoseconds>& grace,
                                const std::map<std::string, ThresholdValue>& min_reclaim);

// GetThresholdQuantity: the absolute value, or int64(capacity * percentage) truncated.
std::int64_t ThresholdQuantity(const EvictionThreshold& t, std::int64_t capacity);
std::int64_t ThresholdQuantity(const ThresholdValue& v, std::int64_t capacity);
// The same as the Quantity upstream prints: the parsed quantity itself, or
// NewQuantity(int64(capacity * percentage), BinarySI).
resource::Quantity ThresholdQuantityValue(const EvictionThreshold& t, std::int64_t capacity);

// thresholdsMet for a LessThan signal: met when available < threshold (plus the minimum
// reclaim when `enforce_min_reclaim`, for a threshold met before).
bool ThresholdMet(const EvictionThreshold& t, std::int64_t capacity, std::int64_t available,
                  bool enforce_min_reclaim = false);

}  // namespace podlimits::kubelet
