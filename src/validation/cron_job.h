// API validation of batch/v1 CronJob (pkg/apis/batch/validation: ValidateCronJobCreate,
// validateCronJobSpec, ValidateJobTemplateSpec), with upstream's paths and messages:
//
//   metadata            a DNS subdomain name of at most 52 characters (`must be no more than 52
//                       characters`: the controller appends `-<minutes since epoch>` and a Job's
//                       name is at most 63)
//   spec.schedule       required; robfig's ParseStandard (cron_schedule.h) and its error;
//                       `cannot use TZ or CRON_TZ in schedule, use timeZone field instead` on
//                       create (an update keeps a TZ its old schedule had, with `cannot use both
//                       timeZone field and TZ or CRON_TZ in schedule` when timeZone is set too)
//   spec.timeZone       non-empty, IANA name characters, not `Local`, in the machine's tz
//                       database (`unknown time zone X`)
//   spec.startingDeadlineSeconds, successfulJobsHistoryLimit, failedJobsHistoryLimit >= 0
//   spec.concurrencyPolicy  Allow, Forbid or Replace (defaulted to Allow)
//   spec.jobTemplate.spec   the Job spec rules (parallelism, completions, activeDeadlineSeconds,
//                       backoffLimit non-negative; restartPolicy OnFailure or Never), no
//                       selector (`selector` will be auto-generated), no manualSelector true,
//                       and the pod rules (the seeds' ulimits, limits.pid, cgroupOptions) under
//                       spec.jobTemplate.spec.template, with their warnings.
#pragma once

#include "codec/node.h"
#include "field/field.h"
#include "validation/feature_gates.h"
#include "validation/pod.h"

namespace podlimits::validation {

// `old` is the stored CronJob of an update (nullptr on create); `object` is defaulted.
ValidationResult ValidateCronJob(const codec::Node& object, const codec::Node* old,
                                 const FeatureGates& gates);

}  // namespace podlimits::validation
