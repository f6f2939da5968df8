// The arithmetic of `podlimits recommend`: from a peak to a limit.
//
//   limits.pid  ceil(peak × (1 + headroom)), within the API's range 1024..16384 (seed 001): a
//               pod that needs fewer gets the minimum; one whose peak with headroom passes the
//               maximum gets the maximum, and the advice says so (such a pod cannot be held with
//               headroom by a pod limit; the node's podPidsLimit is what bounds it)
//   nofile      soft = hard = ceil(peak × (1 + headroom)), at least 1024 (the soft limit most
//               software expects, and the usual default) and at most 1048576 (seed 000's
//               maximum); hard = soft, so that a process cannot raise itself past the advice
//
// The peak for pids is the kernel's pids.peak where the node has it (it misses nothing) and the
// highest sampled pids.current otherwise (a burst between two samples is missed: that is what
// the headroom is for, and the advice says which it used).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace podlimits::recommend {

inline constexpr std::int64_t kMinPodPidLimit = 1024;
inline constexpr std::int64_t kMaxPodPidLimit = 16384;
inline constexpr std::int64_t kMinNofile = 1024;
inline constexpr std::int64_t kMaxNofile = 1048576;

struct LimitAdvice {
  std::int64_t peak = 0;
  std::int64_t with_headroom = 0;  // ceil(peak × (1 + headroom))
  std::int64_t limit = 0;          // within the bounds
  enum class Bound { kNone, kRaisedToMinimum, kCappedAtMaximum } bound = Bound::kNone;
};

// `headroom_percent` >= 0 (50: half the peak again).
LimitAdvice AdvisePodPidLimit(std::int64_t peak, std::int64_t headroom_percent);
LimitAdvice AdviseNofile(std::int64_t peak, std::int64_t headroom_percent);

// "peak 37 + 50% = 56, raised to the minimum 1024" and the like.
std::string Explain(const LimitAdvice& advice, std::int64_t headroom_percent);

}  // namespace podlimits::recommend
