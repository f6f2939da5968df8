// The CronJob controller (pkg/controller/cronjob, the v2 controller), each round per CronJob:
//
//   1. Its Jobs: those it controls. An unfinished one missing from status.active: the Warning
//      UnexpectedJob `Saw a job that the controller did not create or forgot: NAME` (once per
//      Job here; `kubectl create job --from=cronjob/` makes such a one). A finished one in
//      status.active leaves it: SawCompletedJob `Saw completed job: NAME, condition: Complete`.
//      A succeeded one moves status.lastSuccessfulTime up to its completionTime. An entry of
//      status.active whose Job is gone: MissingJob `Active job went missing: NAME`.
//   2. Nothing more for a CronJob being deleted; an invalid timeZone is the Warning
//      UnknownTimeZone, a suspended one waits, an unparseable schedule is UnparseableSchedule.
//      A TZ= in the schedule: UnsupportedSchedule, and it is used.
//   3. The scheduled time: the most recent activation after status.lastScheduleTime (else the
//      creationTimestamp) and startingDeadlineSeconds ago, not after now (mostRecentScheduleTime,
//      below); more than 100 missed: the Warning TooManyMissedTimes. Later than
//      startingDeadlineSeconds after it: MissSchedule `Missed scheduled time to start a job:
//      <RFC 1123 time>`, no Job.
//   4. Already done for that time (its Job in status.active, or lastScheduleTime equal): nothing.
//      Forbid with active Jobs: JobAlreadyActive. Replace: the active Jobs deleted
//      (SuccessfulDelete `Deleted job NAME`), then the new one.
//   5. The Job `<cronjob>-<scheduled time in minutes since the epoch>`: the template's labels and
//      annotations, `batch.kubernetes.io/cronjob-scheduled-timestamp` (the time in RFC 3339, in
//      the CronJob's time zone), the controller reference, the template's spec. SuccessfulCreate
//      `Created job NAME`; status.active gains its reference, lastScheduleTime the time. A Job
//      of that name that exists and is ours is taken into status.active; an error is the Warning
//      FailedCreate `Error creating job: MESSAGE`.
//   6. The history limits: the oldest finished Jobs (by status.startTime, then name) beyond
//      successfulJobsHistoryLimit Complete ones and failedJobsHistoryLimit Failed ones deleted
//      (SuccessfulDelete).
//   7. The status written through cronjobs/status when it changed.
//
// Events that upstream's recorder would aggregate (the same reason and message again each
// round, here every store change or second) are sent once per CronJob and message.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>

#include "controllers/api_client.h"
#include "validation/cron_schedule.h"

namespace podlimits::controllers {

// mostRecentScheduleTime: from `earliest` (lastScheduleTime, else creation, moved up to now -
// startingDeadlineSeconds when given), the latest activation not after `now` (none when the
// next is after now), and how many were missed (0, a few, or more than 100).
struct ScheduleDecision {
  std::optional<std::chrono::sys_seconds> most_recent;
  enum class Missed { kNone, kFew, kMany } missed = Missed::kNone;
  // The schedule's two next activations are less than a second apart, or it has none (a date
  // that never comes, e.g. 30 February): upstream's "time difference between two schedules is
  // less than 1 second", the Warning InvalidSchedule.
  bool invalid = false;
};
ScheduleDecision MostRecentScheduleTime(const validation::CronSchedule& schedule,
                                        std::chrono::sys_seconds earliest,
                                        std::chrono::sys_seconds now);

// `<cronjob>-<minutes since the epoch>` (getJobName).
std::string CronJobName(std::string_view cron_job, std::chrono::sys_seconds scheduled);

class CronJobController {
 public:
  explicit CronJobController(ApiClient& api)
      : api_(api), local_zone_(validation::LocalTimeZone()) {}

  void SyncAll();
  void Sync(const Object& cron_job);

 private:
  // An event once per CronJob uid and text (see the header).
  void EventOnce(const codec::Node& cron_job, std::string_view type, std::string_view reason,
                 const std::string& message);
  bool DeleteJob(const codec::Node& cron_job, const codec::Node& job, codec::Node& status);

  ApiClient& api_;
  validation::TimeZone local_zone_;
  std::set<std::string> reported_;
};

}  // namespace podlimits::controllers
