// A pod's QoS class, computed as upstream's GetPodQOS / ComputePodQOS
// (pkg/apis/core/v1/helper/qos/qos.go; runtime.md §6.2).
#pragma once

#include <string_view>

#include "api/objects.h"

namespace podlimits::cgroups {

enum class QosClass { kGuaranteed, kBurstable, kBestEffort };

// "Guaranteed", "Burstable", "BestEffort" (v1.PodQOSClass).
std::string_view Name(QosClass qos);

// Only cpu and memory count, and only quantities > 0.
//
// With the PodLevelResources gate on and `spec.resources` present, the pod-level requests and
// limits alone decide (Guaranteed needs pod-level cpu and memory limits equal to the requests);
// the containers are not looked at. As upstream, that holds whatever spec.resources contains:
// a pod whose spec.resources sets only `limits.pid` (KEP-6063) has no pod-level cpu/memory
// limits, so it is Burstable when API defaulting copied its containers' requests to pod level,
// BestEffort when they have none, and never Guaranteed.
//
// Otherwise containers and init containers (not ephemeral ones) are summed: BestEffort without
// any cpu/memory request or limit; Guaranteed when every one of them has positive cpu and
// memory limits and the summed requests equal the summed limits for each resource; Burstable
// otherwise. Requests are taken as given: API defaulting (requests default to limits) has run
// before the kubelet sees a pod.
QosClass ComputePodQos(const api::Pod& pod, bool pod_level_resources = true);

}  // namespace podlimits::cgroups
