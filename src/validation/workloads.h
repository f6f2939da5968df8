// API validation of the workload kinds (pkg/apis/apps/validation, pkg/apis/batch/validation),
// with upstream's field paths and messages:
//
//   Deployment  metadata; spec.replicas, minReadySeconds, revisionHistoryLimit,
//               progressDeadlineSeconds (> minReadySeconds) non-negative; spec.selector required,
//               non-empty and well-formed; the strategy (Recreate has no rollingUpdate;
//               maxSurge/maxUnavailable an int >= 0 or a percent <= 100%, not both 0)
//   ReplicaSet  metadata; spec.replicas, minReadySeconds; spec.selector as above
//   CronJob     validation/cron_job.h
//   Job         metadata; parallelism, completions, backoffLimit, activeDeadlineSeconds
//               non-negative; the generated selector and its template labels
//   all         spec.template: its labels match the selector, restartPolicy Always
//               (OnFailure or Never for a Job), no activeDeadlineSeconds (Deployment, RS), and
//               the pod rules of validation/pod.h (the seeds' ulimits, limits.pid and
//               cgroupOptions among them) with every path under spec.template.
//
// Updates: spec.selector is immutable (apps/v1), and a Job's template and completions too.
// Field values the apiserver prints with json.Marshal (selectors, label maps) are printed so.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codec/node.h"
#include "field/field.h"
#include "validation/feature_gates.h"
#include "validation/pod.h"

namespace podlimits::validation {

// `kind` is Deployment, ReplicaSet, Job or CronJob; `object` is defaulted (api/workload_defaults.h).
ValidationResult ValidateWorkloadCreate(std::string_view kind, const codec::Node& object,
                                        const FeatureGates& gates);
// The rules an update adds to the create ones.
field::ErrorList ValidateWorkloadUpdate(std::string_view kind, const codec::Node& updated,
                                        const codec::Node& old);

// The spec.template of a workload as a pod, validated as the pod rules do and reported with
// paths under `spec.template` (the pod's own name and namespace rules left out: a template has
// neither). Warnings come back with the same prefix.
ValidationResult ValidatePodTemplate(const codec::Node& workload, const FeatureGates& gates);

// metav1 ValidateLabelSelector: keys qualified names, values label values, operators known.
field::ErrorList ValidateLabelSelector(const codec::Node& selector, const field::Path& path);

// `Deployment.apps "web" is invalid: ...`: the GroupKind's text for the message.
std::string WorkloadGroupKind(std::string_view kind);

}  // namespace podlimits::validation
