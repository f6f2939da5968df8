// Ages as kubectl shows them: apimachinery's duration.HumanDuration ("45s", "5m12s", "3h",
// "2d4h", "1y30d") and the printers' translateTimestampSince ("<unknown>" without a timestamp).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace podlimits::printers {

std::string HumanDuration(std::chrono::seconds d);

// An RFC 3339 UTC timestamp of the API ("2026-11-25T23:59:03Z"); nullopt when it is not one.
std::optional<std::chrono::sys_seconds> ParseApiTime(std::string_view text);
std::string FormatApiTime(std::chrono::sys_seconds t);

// The age of `timestamp` at `now`, "<unknown>" when it is empty or unreadable.
std::string AgeSince(std::string_view timestamp, std::chrono::sys_seconds now);

}  // namespace podlimits::printers
