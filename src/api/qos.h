// A pod's QoS class, as upstream's pkg/apis/core/helper/qos GetPodQOS / ComputePodQOS computes
// it. The apiserver stores it in status.qosClass on create (podStrategy.PrepareForCreate), and
// the kubelet places the pod's cgroup by it, so it lives here, below both.
#pragma once

#include <string_view>

#include "api/objects.h"

namespace podlimits::api {

enum class QosClass { kGuaranteed, kBurstable, kBestEffort };

// "Guaranteed", "Burstable", "BestEffort" (v1.PodQOSClass).
std::string_view Name(QosClass qos);

// Only cpu and memory count, and only quantities > 0.
//
// With the PodLevelResources gate on and pod-level resources set (isPodLevelResourcesSet: a
// cpu, memory or hugepages-* entry in spec.resources), the pod-level requests and limits alone
// decide (Guaranteed needs pod-level cpu and memory limits equal to the requests); the containers
// are not looked at. KEP-6063's pid is not a pod-level resource in upstream's sense, so a pod whose
// only pod-level entry is the pid limit is classified by its containers ("no QoS effect").
//
// Otherwise containers and init containers (not ephemeral ones) are summed: BestEffort without
// any cpu/memory request or limit; Guaranteed when every one of them has positive cpu and
// memory limits and the summed requests equal the summed limits for each resource; Burstable
// otherwise. Requests are taken as given: API defaulting (requests default to limits) has run
// before anything asks.
QosClass ComputePodQos(const Pod& pod, bool pod_level_resources = true);

}  // namespace podlimits::api
