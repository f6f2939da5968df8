// Go's time.ParseDuration, for the KubeletConfiguration fields that hold durations
// (evictionSoftGracePeriod's values, evictionPressureTransitionPeriod): the same accepted
// inputs ("300ms", "-1.5h", "2h45m", "0") and the same error texts.
#pragma once

#include <chrono>
#include <string_view>

#include "base/error.h"

namespace podlimits::codec {

// Errors: `time: invalid duration "x"`, `time: missing unit in duration "1"`,
// `time: unknown unit "d" in duration "1d"`.
Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view text);

// time.Duration.String(): "5m0s", "1.5s", "300ms", "0s".
std::string FormatGoDuration(std::chrono::nanoseconds d);

}  // namespace podlimits::codec
