// The node's pid capacity and allocatable (seed 002, kubelet pidlimit.Stats and
// getNodeAllocatableInternalAbsolute), read from /proc through a root directory so tests can
// point it at a temporary tree.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>

#include "api/objects.h"
#include "base/error.h"
#include "kubelet/config/node_config.h"

namespace podlimits::kubelet {

struct PidCapacity {
  std::optional<std::int64_t> pid_max;      // /proc/sys/kernel/pid_max
  std::optional<std::int64_t> threads_max;  // /proc/sys/kernel/threads-max

  // min(pid_max, threads-max) over the files that could be read; std::nullopt when neither
  // could (the kubelet then has no pid capacity and bounds nothing by it).
  std::optional<std::int64_t> Capacity() const;
};

PidCapacity ReadPidCapacity(const std::filesystem::path& proc_root = "/proc");

// The number of tasks (threads included) on the node: the T of /proc/loadavg's "R/T" field, as
// the kubelet's runningTaskCount reads it for pid.available.
Result<std::int64_t> ReadTaskCount(const std::filesystem::path& proc_root = "/proc");

// capacity − system-reserved pid − kube-reserved pid, computed on Quantities and clamped at 0;
// the int64 is Value() (rounded up), as getCgroupConfig writes it.
std::int64_t PidAllocatable(std::int64_t capacity, const resource::Quantity& system_reserved,
                            const resource::Quantity& kube_reserved);
std::int64_t PidAllocatable(std::int64_t capacity, const NodeConfig& config);

// The pids.max of the kubepods cgroup: allocatable when "pods" is in enforceNodeAllocatable,
// capacity otherwise (createNodeAllocatableCgroups); std::nullopt when capacity is unknown.
// The QoS cgroups under it stay unbounded.
std::optional<std::int64_t> KubepodsPidsMax(std::optional<std::int64_t> capacity,
                                            const NodeConfig& config);

}  // namespace podlimits::kubelet
