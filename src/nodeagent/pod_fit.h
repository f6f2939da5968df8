// Whether a pod may be bound to this node: kube-scheduler's filter plugins that look at the
// Node object, in the scheduler's order, with its reasons. The one-node scheduler of `podlimits
// serve` binds a pod only when they all pass; otherwise the pod stays Pending with PodScheduled
// False (Unschedulable) and the scheduler's message, and is tried again when the Node changes.
//
//   NodeUnschedulable  spec.unschedulable (kubectl cordon), unless the pod tolerates the
//                      node.kubernetes.io/unschedulable:NoSchedule taint
//   TaintToleration    every NoSchedule and NoExecute taint tolerated (PreferNoSchedule only
//                      scores)
//   NodeResourcesFit   the pod count within status.allocatable.pods (maxPods); resolvable by
//                      preemption in principle, so its message names no victims instead
//   NodeAffinity       spec.nodeSelector, and requiredDuringSchedulingIgnoredDuringExecution's
//                      nodeSelectorTerms (In, NotIn, Exists, DoesNotExist, Gt, Lt; matchFields
//                      on metadata.name)
//   NodeDeclaredFeatures  every feature the pod needs (kubelet::RequiredFeatures: PerPodPIDLimit,
//                      ContainerUlimits, SupportsCgroupOptions) in status.declaredFeatures
//                      (KEP-5328), as seed 001 has the scheduler place pid-limited pods only on
//                      nodes that declare PerPodPIDLimit
//
// Each of these is UnschedulableAndUnresolvable: preemption cannot help, and the message says so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "codec/node.h"

namespace podlimits::nodeagent {

// NodeResourcesFit's reason for the pod count.
inline constexpr std::string_view kTooManyPods = "Too many pods";
// NodeDeclaredFeatures' reason (errReasonUnsatisfiedRequirements).
inline constexpr std::string_view kUnmatchedFeatures = "node(s) didn't match Pod's required features";

// The first failing plugin's reason ("node(s) were unschedulable"), or nullopt when `pod` fits
// `node` (both API objects).
// `pods_on_node`: the active pods bound to it, for NodeResourcesFit's pod count against
// status.allocatable.pods ("Too many pods").
std::optional<std::string> UnfitReason(const codec::Node& pod, const codec::Node& node,
                                       std::int64_t pods_on_node = 0);

// The scheduler's FitError for one node: "0/1 nodes are available: 1 <reason>. preemption: 0/1
// nodes are available: 1 Preemption is not helpful for scheduling."
std::string FitErrorMessage(std::string_view reason);

}  // namespace podlimits::nodeagent
