// What deleting a Deployment, ReplicaSet, Job or CronJob with propagationPolicy Orphan (`kubectl
// delete --cascade=orphan`) does before the object goes: its dependents (a Deployment's
// ReplicaSets, a CronJob's Jobs, a ReplicaSet's or Job's pods) lose the ownerReference naming it, so the garbage collector
// (src/controllers) leaves them, as the orphan finalizer has the garbage collector do upstream.
// Background (the default) and Foreground leave the ownerReferences: the garbage collector
// deletes the dependents once the owner is gone (foreground's waiting is not done).
#pragma once

#include <string_view>

#include "base/error.h"
#include "storage/object_store.h"

namespace podlimits::apiserver {

Result<void> OrphanDependents(storage::ObjectStore& store, std::string_view resource,
                              std::string_view namespace_, std::string_view owner_uid);

}  // namespace podlimits::apiserver
