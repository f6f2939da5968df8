// A CronJob's spec.schedule as robfig/cron v3's ParseStandard reads it (what kube-apiserver
// validates with and kube-controller-manager's cronjob controller schedules with):
//
//   [TZ=ZONE |CRON_TZ=ZONE ] MINUTE HOUR DAY-OF-MONTH MONTH DAY-OF-WEEK
//   [TZ=ZONE |CRON_TZ=ZONE ] @yearly|@annually|@monthly|@weekly|@daily|@midnight|@hourly
//   [TZ=ZONE |CRON_TZ=ZONE ] @every DURATION            (Go's duration syntax, e.g. 1h30m)
//
// A field is a comma-separated list of `*` or `?`, N, N-M, each with an optional /STEP; months
// and weekdays also by their three-letter names (jan, sun), any case. When both day fields are
// restricted a day matches either; when one is `*` both must match. Without a zone the schedule
// runs in the controller's local zone (the machine's /etc/localtime).
//
// The errors are robfig's messages, which the apiserver puts after `spec.schedule: Invalid
// value: "...": ` (e.g. `expected exactly 5 fields, found 1: [error]`).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "validation/time_zone.h"

namespace podlimits::validation {

class CronSchedule {
 public:
  // The first activation strictly after `t`; none when the fields never match within five
  // years (robfig's zero time), e.g. `0 0 30 2 *`.
  std::optional<std::chrono::sys_seconds> Next(std::chrono::sys_seconds t) const;

 private:
  friend Result<CronSchedule> ParseCronSchedule(std::string_view, const TimeZone&);
  std::uint64_t minute_ = 0, hour_ = 0, dom_ = 0, month_ = 0, dow_ = 0;
  std::optional<std::int64_t> every_;  // @every, in whole seconds (at least 1)
  TimeZone zone_;
};

// ParseStandard; `local` is the zone of a schedule without TZ= (the controller passes the
// machine's, validation any).
Result<CronSchedule> ParseCronSchedule(std::string_view spec, const TimeZone& local = {});

// The machine's local zone (/etc/localtime), UTC when it cannot be read.
TimeZone LocalTimeZone();

}  // namespace podlimits::validation
