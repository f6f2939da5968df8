// The node's cpu, memory and ephemeral-storage as its Node object publishes them: capacity
// (online CPUs, MemTotal, the size of the file system under the state directory) and allocatable
// (capacity minus systemReserved and kubeReserved, and memory also minus the hard eviction
// threshold memory.available, as the kubelet's GetNodeAllocatableReservation does). The downward
// API fills a container's unset limits from allocatable (defaultPodLimitsForDownwardAPI).
#pragma once

#include <cstdint>

#include "api/objects.h"
#include "kubelet/config/node_config.h"

namespace podlimits::kubelet {

// MemTotal of /proc/meminfo in bytes; 0 when unreadable.
std::int64_t NodeMemoryBytes();

api::ResourceList NodeCapacity(const NodeConfig& config);
api::ResourceList NodeAllocatable(const NodeConfig& config);

}  // namespace podlimits::kubelet
