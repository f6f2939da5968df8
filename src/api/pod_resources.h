// The pod resource helpers of k8s.io/component-helpers/resource that the API layer needs
// (defaulting and validation of pod-level resources, LimitRanger's pod totals).
#pragma once

#include <string_view>

#include "api/objects.h"

namespace podlimits::api {

// IsSupportedPodLevelResource: cpu, memory and hugepages-*. (KEP-6063's pid is a pod-level
// limit too, but upstream's helper does not know it: pid takes no part in defaulting or QoS.)
bool IsSupportedPodLevelResource(std::string_view name);

// IsPodLevelResourcesSet: spec.resources has a supported entry in requests or limits.
bool IsPodLevelResourcesSet(const PodSpec& spec);

// AggregateContainerRequests / AggregateContainerLimits: the effective container total of the
// sidecar KEP (753) — max(the sum over regular containers and restartable init containers, each
// plain init container plus the sidecars started before it). Spec only (no status, no overhead).
ResourceList AggregateContainerRequests(const PodSpec& spec);
ResourceList AggregateContainerLimits(const PodSpec& spec);

// addResourceList / maxResourceList. Adding keeps the format of the first non-zero addend, as
// Quantity.Add does (1Gi + 512Mi -> 1536Mi).
void AddResourceList(ResourceList& total, const ResourceList& more);
void MaxResourceList(ResourceList& peak, const ResourceList& other);

}  // namespace podlimits::api
