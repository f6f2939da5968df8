// Node admission: before anything is created, does this node declare every feature the pod needs,
// and can it grant every rlimit the pod asks? (The kubelet's declared-features admit handler,
// plus podlimits' rlimit-ceiling check.)
//
// What a pod needs:
//   spec.resources.limits.pid set             -> PerPodPIDLimit
//   a container with mountMode: Writable      -> SupportsCgroupOptions (ReadOnly is the default
//                                                mount and needs nothing)
//   a container with securityContext.ulimits  -> ContainerUlimits, and each value within this
//                                                node's ceiling (rlimit_ceiling.h)
//
// Checks run in that order, containers in init, app, ephemeral order; the first failure rejects
// the pod. Messages (reason FailedNodeDeclaredFeaturesCheck):
//   pid limit, cgroup v1/hybrid  `per-pod PID limit requires cgroupsv2, but this node is running
//                                 cgroupsv1; pod NAME specifies spec.resources.limits.pid`
//                                 (KEP-6063 kubelet code)
//   Writable, no cgroup v2       `CgroupOptions.MountMode=Writable requires cgroup v2` (seed 003)
//   Writable, no runtime support `container "C" requires CgroupOptions but the container runtime
//                                 does not support it` (seed 003)
//   Writable, no nsdelegate      `CgroupOptions.MountMode=Writable requires the cgroup2 filesystem
//                                 to be mounted with nsdelegate` (podlimits; the seed has no text)
//   a gate off on this node, or ulimits without a runtime that applies them: podlimits' messages
//   naming the feature and why it is not declared.
// A value above a ceiling is rejected with reason UlimitExceedsNodeCeiling.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/objects.h"
#include "kubelet/lifecycle/declared_features.h"
#include "kubelet/events/events.h"
#include "kubelet/cm/node_capabilities.h"
#include "kubelet/cm/rlimit_ceiling.h"

namespace podlimits::kubelet {

struct AdmitResult {
  bool admitted = true;
  std::string reason;   // when rejected
  std::string message;  // when rejected
  // Warning events for an admitted pod (UlimitClamped), in container order.
  std::vector<Event> events;
  // Per container name: the rlimits to apply, with -1 and negatives already resolved.
  std::map<std::string, std::vector<GrantedUlimit>> ulimits;

  // The rejection as the Warning event kubectl describe shows.
  Event RejectionEvent() const { return {EventType::kWarning, reason, message}; }
};

AdmitResult AdmitPod(const api::Pod& pod, const DeclaredFeatures& features,
                     const NodeCapabilities& caps);

}  // namespace podlimits::kubelet
