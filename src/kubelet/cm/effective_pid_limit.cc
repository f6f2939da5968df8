#include "kubelet/cm/effective_pid_limit.h"

#include <fmt/format.h>

namespace podlimits::kubelet {

std::int64_t PodPIDLimit(const api::Pod& pod) {
  if (!pod.spec.resources) return 0;
  auto it = pod.spec.resources->limits.find("pid");
  return it == pod.spec.resources->limits.end() ? 0 : it->second.Value();
}

EffectivePidLimit EffectivePodPidsLimit(const api::Pod& pod, const NodeConfig& config,
                                        const validation::FeatureGates& gates) {
  EffectivePidLimit out;
  std::int64_t effective = config.pod_pids_limit;
  if (gates.per_pod_pid_limit) {
    if (std::int64_t requested = PodPIDLimit(pod); requested > 0) {
      if (requested <= effective || effective <= 0) {
        out.event = Event{
            EventType::kNormal, std::string(kReasonPIDLimitApplied),
            effective > 0
                ? fmt::format("Pod cgroup pids.max set to {} from spec.resources.limits.pid "
                              "(node podPidsLimit {})",
                              requested, effective)
                : fmt::format("Pod cgroup pids.max set to {} from spec.resources.limits.pid "
                              "(the node sets no podPidsLimit)",
                              requested)};
        effective = requested;
      } else {
        out.event = Event{
            EventType::kWarning, std::string(kReasonPIDLimitCapped),
            fmt::format("Requested PID limit {} exceeds node podPidsLimit {}; effective limit "
                        "capped to {}",
                        requested, effective, effective)};
      }
      out.pod_limit_applied = true;
    }
  }
  if (effective > 0) out.limit = effective;
  return out;
}

}  // namespace podlimits::kubelet
