// The pod status the node publishes, merged with what others wrote into the stored one, as the
// kubelet's status manager merges (mergePodStatus):
//
//   - the conditions the kubelet owns (PodReadyToStartContainers, Initialized, Ready,
//     ContainersReady, PodScheduled) are the node's, PodScheduled with the binding's time;
//     every other condition is kept as stored, ahead of them: DisruptionTarget (an
//     eviction's), the conditions of readiness gates that controllers write through
//     pods/status;
//   - Ready also waits for the pod's readinessGates (GeneratePodReadyCondition): with the
//     containers ready but a gate's condition missing or not True, Ready is False with reason
//     ReadinessGatesNotReady and the kubelet's message; its transition time moves only when
//     its status does.
#pragma once

#include <string>

#include "codec/node.h"

namespace podlimits::nodeagent {

// `next`: the status the node computed; `pod`: the stored pod (its spec and status); `now`:
// RFC 3339, for a Ready condition whose status the gates changed.
void MergePodStatus(codec::Node& next, const codec::Node& pod, const std::string& now);

}  // namespace podlimits::nodeagent
