// The garbage collector's background deletion (pkg/controller/garbagecollector), for what the
// workload controllers own: a Job, ReplicaSet or Pod whose ownerReferences name Deployments,
// ReplicaSets, Jobs or CronJobs none of which exists any more (by uid) is deleted, pods
// gracefully. So `kubectl delete deployment` takes its ReplicaSets and then their pods with it,
// and `kubectl delete cronjob` its Jobs and theirs.
//
// Not done: foreground deletion (the owner waits for its dependents); orphaning is done by the
// delete itself (apiserver/workload_delete.h). Owners of other kinds are not looked at: a
// dependent with such an owner is left alone.
#pragma once

#include "controllers/api_client.h"

namespace podlimits::controllers {

class GarbageCollector {
 public:
  explicit GarbageCollector(ApiClient& api) : api_(api) {}

  void SyncAll();

 private:
  ApiClient& api_;
};

}  // namespace podlimits::controllers
