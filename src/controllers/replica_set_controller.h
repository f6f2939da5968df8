// The ReplicaSet controller (pkg/controller/replicaset): each ReplicaSet keeps spec.replicas
// active pods it controls.
//
//   1. Its pods: those whose controller ownerReference is the ReplicaSet (orphans matching the
//      selector are not adopted here).
//   2. Too few active pods: new ones from the template (generateName `<rs>-`, the controller
//      reference), created through the API so LimitRanger and Pod Security admit them; events
//      SuccessfulCreate `Created pod: NAME`, or FailedCreate `Error creating: MESSAGE` (Warning)
//      and the ReplicaFailure condition, and no more creates this round.
//   3. Too many: the surplus deleted (gracefully), the least useful first: unscheduled before
//      scheduled, pending before running, not ready before ready, newest first; events
//      SuccessfulDelete `Deleted pod: NAME`.
//   4. Status: replicas (active pods), fullyLabeledReplicas, readyReplicas, availableReplicas
//      (ready for minReadySeconds), observedGeneration, written when it changes.
#pragma once

#include "controllers/api_client.h"

namespace podlimits::controllers {

class ReplicaSetController {
 public:
  explicit ReplicaSetController(ApiClient& api) : api_(api) {}

  void SyncAll();
  void Sync(const Object& rs);

 private:
  ApiClient& api_;
};

}  // namespace podlimits::controllers
