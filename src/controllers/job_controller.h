// The Job controller (pkg/controller/job), for NonIndexed Jobs:
//
//   1. Its pods: those it controls; active (not finished, not being deleted), succeeded, failed.
//   2. status.startTime at the first sync.
//   3. Failed: more failed pods than backoffLimit (BackoffLimitExceeded, `Job has reached the
//      specified backoff limit`) or running longer than activeDeadlineSeconds (DeadlineExceeded,
//      `Job was active longer than specified deadline`): the FailureTarget and Failed conditions,
//      a Warning event of that reason, the active pods deleted.
//   4. Complete: succeeded reaches completions: the SuccessCriteriaMet and Complete conditions
//      (CompletionsReached, `Reached expected number of succeeded pods`), completionTime, the
//      event Completed `Job completed`.
//   5. Otherwise min(parallelism, completions - succeeded) active pods, new ones from the
//      template (events SuccessfulCreate `Created pod: NAME`), after a failure only once the
//      back-off has passed (10 s doubling per failure, at most 6 min, from the last failure).
//   6. Status: active, ready, succeeded, failed, terminating, uncountedTerminatedPods {}.
//
// Not done: Indexed completion mode, podFailurePolicy, successPolicy, backoffLimitPerIndex,
// suspend beyond not creating pods, the job-tracking finalizer (pods are counted from the
// store), container restarts of restartPolicy OnFailure counted against backoffLimit.
#pragma once

#include "controllers/api_client.h"

namespace podlimits::controllers {

class JobController {
 public:
  explicit JobController(ApiClient& api) : api_(api) {}

  void SyncAll();
  void Sync(const Object& job);

 private:
  ApiClient& api_;
};

}  // namespace podlimits::controllers
