// PodLevelResources defaulting of spec.resources (KEP-2837), as current upstream does it:
// DefaultPodLevelResources in pkg/api/pod/util.go, called from podStrategy.PrepareForCreate
// (kubernetes#140514 moved it there from SetDefaults_Pod in defaults.go, so it runs after the
// mutating admission plugins and sees the container defaults LimitRanger sets).
#pragma once

#include "codec/node.h"

namespace podlimits::api {

// Edits `spec` (a pod's spec object) in place, only when spec.resources sets a supported
// pod-level resource (cpu, memory, hugepages-*; a pid-only spec.resources is left alone):
//  1. hugepages: a hugepage resource the containers limit, with neither a pod-level request nor
//     a pod-level limit, gets the aggregated container limit as its pod-level limit
//     (defaultHugePagePodLimits);
//  2. requests: cpu and memory without a pod-level request get the aggregated container requests
//     (AggregateContainerRequests: init-container peak vs regular + sidecar sum); then every
//     supported resource with a pod-level limit and still no request gets the limit
//     (defaultPodRequests);
//  3. limits: cpu and memory without a pod-level limit, when every container and init container
//     has a limit for it, get max(pod-level request, aggregated container limits)
//     (defaultPodLimits; kubernetes#136120).
void DefaultPodLevelResources(codec::Node& spec);

}  // namespace podlimits::api
