// The Deployment controller (pkg/controller/deployment): a Deployment runs its pod template
// through ReplicaSets it owns, one per template.
//
//   1. Its ReplicaSets: those it controls (ownerReference). The new one is the one whose
//      template equals the Deployment's (the pod-template-hash label aside); the others are old.
//   2. No new one: it is created as `<deployment>-<pod-template-hash>` (the hash of the template
//      and status.collisionCount, in the alphabet of rand.SafeEncodeString), its selector, labels
//      and template labels extended by pod-template-hash, revision one above the old ones'
//      (annotation deployment.kubernetes.io/revision, also set on the Deployment); Progressing
//      NewReplicaSetCreated `Created new replica set "NAME"`. An old ReplicaSet whose template
//      comes back (`kubectl rollout undo`) becomes the new one with the next revision.
//   3. RollingUpdate: maxSurge (rounded up) and maxUnavailable (rounded down) of spec.replicas,
//      1 unavailable when both are 0; the new ReplicaSet scaled up within replicas + maxSurge,
//      the old ones scaled down (unhealthy replicas first, oldest first) while replicas -
//      maxUnavailable stay available. Recreate: the old ones to 0, and once their pods are gone
//      the new one to replicas. Each scale is an event ScalingReplicaSet `Scaled up replica set
//      NAME from A to B` (or down).
//   4. History: old ReplicaSets at 0 replicas beyond revisionHistoryLimit are deleted, the lowest
//      revisions first.
//   5. Status: replicas, updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas,
//      observedGeneration; conditions Available (MinimumReplicasAvailable `Deployment has minimum
//      availability.` / MinimumReplicasUnavailable `Deployment does not have minimum
//      availability.`) and Progressing (NewReplicaSetCreated, FoundNewReplicaSet `Found new
//      replica set "NAME"`, ReplicaSetUpdated `ReplicaSet "NAME" is progressing.`,
//      NewReplicaSetAvailable `ReplicaSet "NAME" has successfully progressed.`,
//      ProgressDeadlineExceeded `ReplicaSet "NAME" has timed out progressing.`).
//
// Not done: adopting orphan ReplicaSets, proportional scaling of several active ReplicaSets
// during a rollout (the new one takes the change), spec.paused beyond not rolling out.
#pragma once

#include <cstdint>
#include <string>

#include "controllers/api_client.h"

namespace podlimits::controllers {

// The pod-template-hash of a template (its canonical JSON) and a collision count.
std::string PodTemplateHash(const codec::Node& pod_template, std::int64_t collision_count);

// An int-or-percent of `total` (intstr.GetScaledValueFromIntOrPercent).
std::int64_t ScaledValue(const codec::Node* value, std::int64_t total, bool round_up);

class DeploymentController {
 public:
  explicit DeploymentController(ApiClient& api) : api_(api) {}

  void SyncAll();
  void Sync(const Object& deployment);

 private:
  ApiClient& api_;
};

}  // namespace podlimits::controllers
