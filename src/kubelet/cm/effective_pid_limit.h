// The pids.max of a pod cgroup (KEP-6063 on top of the node's podPidsLimit, seed 002), as the
// kubelet's podContainerManager.EnsureExists computes it.
//
//   podPidsLimit > 0, no pod limit         -> podPidsLimit
//   podPidsLimit <= 0 (-1 / 0), no pod limit -> none: bounded only by the kubepods cgroup
//   pod limit set, PerPodPIDLimit on        -> min(podPidsLimit, pod limit), where a node value
//                                              <= 0 means "no node cap"; a pod asking more than
//                                              the node allows gets a PIDLimitCapped event,
//                                              one within it a PIDLimitApplied event naming
//                                              the value and the node's cap (podlimits' own)
//   PerPodPIDLimit off                      -> the pod limit is ignored
//
// The cgroup v1 rejection of a pod with a pod limit is node admission's job (node_admission.h);
// this function assumes an admitted pod.
#pragma once

#include <cstdint>
#include <optional>

#include "api/objects.h"
#include "kubelet/events/events.h"
#include "kubelet/config/node_config.h"
#include "validation/feature_gates.h"

namespace podlimits::kubelet {

struct EffectivePidLimit {
  // pids.max for the pod cgroup; std::nullopt leaves it unset.
  std::optional<std::int64_t> limit;
  // PIDLimitCapped (a Warning), or PIDLimitApplied when the pod's own limit is the cgroup's
  // pids.max: to record once the pod cgroup exists (upstream does not emit PIDLimitCapped when
  // the cgroup cannot be created).
  std::optional<Event> event;
  // The pod's own limit took part: count it in kubelet_pod_pid_limit_applied_total once the
  // limit is written.
  bool pod_limit_applied = false;
};

// getPodPIDLimit: spec.resources.limits.pid as an integer (Value(), rounded up), 0 when unset.
std::int64_t PodPIDLimit(const api::Pod& pod);

EffectivePidLimit EffectivePodPidsLimit(const api::Pod& pod, const NodeConfig& config,
                                        const validation::FeatureGates& gates);

}  // namespace podlimits::kubelet
