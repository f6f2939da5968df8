// cpu and memory as the kubelet turns them into cgroup v2 files, on a node that enforces them
// (a cgroup v2 node whose root offers the cpu and memory controllers).
//
// The pod cgroup (ResourceConfigForPod, pkg/kubelet/cm/helpers_linux.go): cpu.weight from the
// pod's cpu requests (MilliCPUToShares, then the runtimes' shares-to-weight conversion
// 1 + (shares - 2) * 9999 / 262142; 2 shares, weight 1, for BestEffort); cpu.max from its cpu
// limit (MilliCPUToQuota over a 100 ms period, at least 1 ms) and memory.max from its memory
// limit, both only when every container declares that limit (always for Guaranteed). The
// pod's requests and limits are spec.resources when set, else the effective container totals
// (sidecars and init containers counted as the scheduler does).
//
// The QoS parents (the kubelet's QOSContainerManager and node allocatable enforcement):
// besteffort's cpu.weight is that of the minimum 2 shares; burstable's comes from the sum of the
// cpu requests of the node's Burstable pods; kubepods gets cpu.weight from allocatable cpu and
// memory.max from allocatable memory (capacity minus reservations, without the eviction
// threshold: getNodeAllocatableAbsolute) when pods are in enforceNodeAllocatable.
//
// A container (what containerd writes into the OCI spec, here as linux.resources.unified):
// cpu.weight from its request, cpu.max from its limit ("max 100000" without one), memory.max
// from its limit and memory.swap.max 0 with it (the kubelet's NoSwap).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "api/objects.h"
#include "cgroups/qos.h"

namespace podlimits::kubelet {

inline constexpr std::int64_t kCpuPeriodUs = 100000;

// MilliCPUToShares and the shares-to-weight conversion of runc and crun.
std::uint64_t MilliCpuToShares(std::int64_t milli);
std::uint64_t SharesToWeight(std::uint64_t shares);
// MilliCPUToQuota: 0 (no quota) for 0.
std::int64_t MilliCpuToQuota(std::int64_t milli);

// The pod's cpu request in millicores as the kubelet sums it for the burstable cgroup
// (resource.PodRequests).
std::int64_t PodCpuRequestMilli(const api::Pod& pod);
// The files of the pod's QoS cgroup; `burstable_cpu_milli` is the Burstable pods' total.
std::map<std::string, std::string> QosResourceFiles(cgroups::QosClass qos,
                                                    std::int64_t burstable_cpu_milli);
// kubepods' files under allocatable enforcement.
std::map<std::string, std::string> KubepodsResourceFiles(std::int64_t allocatable_cpu_milli,
                                                         std::int64_t allocatable_memory);
// The pod cgroup's files.
std::map<std::string, std::string> PodResourceFiles(const api::Pod& pod);
// A container cgroup's files.
std::map<std::string, std::string> ContainerResourceFiles(const api::Container& container);

}  // namespace podlimits::kubelet
