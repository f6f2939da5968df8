// API defaulting of the workload kinds, as pkg/apis/apps/v1/defaults.go and
// pkg/apis/batch/v1/defaults.go apply it, with the pod template defaulted as a PodSpec
// (SetDefaultsPodTemplate). Edits the tree in place; only absent fields are filled.
//
//   Deployment  replicas 1; strategy RollingUpdate with maxUnavailable and maxSurge "25%";
//               revisionHistoryLimit 10; progressDeadlineSeconds 600
//   ReplicaSet  replicas 1
//   Job         completions and parallelism 1 when both are unset, else parallelism 1;
//               backoffLimit 6; completionMode NonIndexed; suspend false;
//               podReplacementPolicy TerminatingOrFailed (Failed with a podFailurePolicy);
//               the Job's labels from its template's when it has none
//   CronJob     concurrencyPolicy Allow; suspend false; successfulJobsHistoryLimit 3;
//               failedJobsHistoryLimit 1; the pod template of spec.jobTemplate.spec
#pragma once

#include <string_view>

#include "codec/node.h"

namespace podlimits::api {

void SetDefaultsDeployment(codec::Node& deployment);
void SetDefaultsReplicaSet(codec::Node& replica_set);
void SetDefaultsJob(codec::Node& job);
void SetDefaultsCronJob(codec::Node& cron_job);

// One of the above by kind; false for a kind that is not a workload.
bool SetDefaultsWorkload(codec::Node& object, std::string_view kind);

// The kinds whose spec.template is a pod template run by src/controllers.
bool IsWorkloadKind(std::string_view kind);

}  // namespace podlimits::api

namespace podlimits::api {

// The Job strategy's generateSelector (unless spec.manualSelector): the template gets the
// job-name and controller-uid labels (batch.kubernetes.io/ and legacy names) where unset, the
// selector matches batch.kubernetes.io/controller-uid = `uid`, and the Job's labels, when it has
// none, are its template's (the defaulting that runs again when the stored Job is read).
void GenerateJobSelector(codec::Node& job, std::string_view uid);

}  // namespace podlimits::api
