// The kubelet's check of its node allocatable configuration at start
// (pkg/kubelet/cm/node_container_manager_linux.go, validateNodeAllocatable): a node whose
// reservations exceed its capacity does not start, with
//
//   invalid Node Allocatable configuration. Resource "pid" has a reservation of
//   {{40000 0} {<nil>}  DecimalSI} but capacity of {{32768 0} {<nil>}  DecimalSI}. Expected
//   capacity >= reservation.
//
// (the quantities as Go's %v prints a resource.Quantity value). The kubelet loops over the
// resources of its capacity, where pid capacity lives in its internal capacity instead; podlimits
// bounds pids only, so it applies the same rule to pid: systemReserved + kubeReserved must not
// exceed min(pid_max, threads-max). Otherwise the kubepods cgroup would get pids.max 0 and no pod
// could start. `node-info` and `run` both refuse such a node (exit 3: the node cannot run, as a
// kubelet that does not start; the same file is valid on a node with more capacity).
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>

#include "base/error.h"
#include "kubelet/config/node_config.h"

namespace podlimits::kubelet {

// Nothing to check when the capacity is unknown.
Result<void> ValidateNodeAllocatable(std::optional<std::int64_t> pid_capacity,
                                     const NodeConfig& config);

}  // namespace podlimits::kubelet
