// An IANA time zone from the machine's tz database (/usr/share/zoneinfo), as Go's
// time.LoadLocation reads it for a CronJob's spec.timeZone and a schedule's TZ=/CRON_TZ= prefix:
//
//   ""  and "UTC"   UTC, without reading a file
//   "Local"         refused by the caller (CronJob validation): it names no zone
//   a name          the TZif file of that name; a name with ".." or a leading "/" or "\" is
//                   `time: invalid location name`, a missing or unreadable file
//                   `unknown time zone NAME` (Go's words)
//
// The offsets are the file's transitions (the 64-bit block of a version 2+ file); past the
// last one the last offset holds. Debian's tzdata files are "fat" (transitions to 2037), so this
// only differs from Go for times after 2037, where Go applies the footer's POSIX rule.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace podlimits::validation {

class TimeZone {
 public:
  TimeZone() = default;  // UTC

  // The UTC offset in seconds at `t`, and the interval [start, end) it holds for.
  struct Offset {
    std::int64_t seconds = 0;
    std::int64_t start = INT64_MIN;
    std::int64_t end = INT64_MAX;
  };
  Offset Lookup(std::int64_t unix_seconds) const;

  const std::string& name() const { return name_; }

 private:
  friend Result<TimeZone> LoadTimeZone(std::string_view, const std::filesystem::path&);
  std::string name_ = "UTC";
  std::vector<std::int64_t> transitions_;  // ascending
  std::vector<std::int32_t> offsets_;      // offset after each transition
  std::int32_t initial_ = 0;               // before the first transition
};

// The zone `name` (see above); the error's detail is Go's message.
Result<TimeZone> LoadTimeZone(std::string_view name,
                              const std::filesystem::path& zoneinfo = "/usr/share/zoneinfo");

}  // namespace podlimits::validation
