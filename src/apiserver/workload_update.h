// What an update of a Deployment, ReplicaSet or Job adds to the generic update (update.cc), as
// their registry strategies do: PrepareForUpdate's generation, bumped when the spec changes (the
// controllers' observedGeneration and `kubectl rollout status` wait on it). Their ValidateUpdate
// rules (the immutable selector) are validation/workloads.h's, reported through the admission.
#pragma once

#include "codec/node.h"

namespace podlimits::apiserver {

// `next` is the admitted object with the stored server-owned metadata.
void PrepareWorkloadUpdate(codec::Node& next, const codec::Node& stored);

}  // namespace podlimits::apiserver
