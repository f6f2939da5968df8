// What kube-apiserver's pod registry strategy does to a new pod after admission's mutating
// plugins and before validation (podStrategy.PrepareForCreate, pkg/registry/core/pod/strategy.go).
// Its WarningsOnCreate is validation/pod_warnings.h.
#pragma once

#include <string>
#include <vector>

#include "api/objects.h"
#include "codec/node.h"

namespace podlimits::api {

struct PrepareForCreateOptions {
  bool pod_level_resources = true;  // the PodLevelResources gate
};

struct PreparedPod {
  Pod pod;  // the typed view of the prepared tree
  // Warnings PrepareForCreate emits itself (the AppArmor annotation deprecations).
  std::vector<std::string> warnings;
};

// On the pod's tree, in upstream's order:
//  - pod-level resource defaults (DefaultPodLevelResources, with the PodLevelResources gate);
//  - metadata.generation = 1;
//  - status replaced by {phase: Pending, qosClass: GetPodQOS(pod)}, plus the PodScheduled=False
//    condition with reason SchedulingGated when spec.schedulingGates is non-empty
//    (applySchedulingGatedCondition; its lastTransitionTime is the apiserver's clock and is not
//    invented here);
//  - applyAppArmorVersionSkew: deprecated AppArmor annotations copied into the containers' empty
//    appArmorProfile fields, with their deprecation warnings.
PreparedPod PrepareForCreate(codec::Node& pod, const PrepareForCreateOptions& options);

}  // namespace podlimits::api
