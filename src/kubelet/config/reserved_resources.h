// kubeReserved / systemReserved: what the kubelet sets aside for system and Kubernetes daemons.
//
// Parsed as cmd/kubelet/app/server.go parseResourceList does: only cpu, memory,
// ephemeral-storage and pid may be reserved; each value is a Quantity that must not be negative.
// The kubelet's internal resource name for process IDs is "pid" (pkg/kubelet/stats/pidlimit),
// which is what podlimits subtracts from the pid capacity (seed 002).
#pragma once

#include <cstdint>
#include <expected>
#include <map>
#include <string>

#include "api/objects.h"
#include "base/error.h"

namespace podlimits::kubelet {

inline constexpr std::string_view kReservedPid = "pid";

// The reserved list, or upstream's error for the first bad entry (in key order):
// `cannot reserve "gpu" resource`, `failed to parse quantity "x" for "pid" resource: ...`,
// `resource quantity for "pid" cannot be negative: -1`.
Result<api::ResourceList> ParseReservedResources(const std::map<std::string, std::string>& entries);

}  // namespace podlimits::kubelet
