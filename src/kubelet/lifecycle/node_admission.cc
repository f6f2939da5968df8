#include "kubelet/lifecycle/node_admission.h"

#include <fmt/format.h>

#include <functional>

#include "field/field.h"
#include "kubelet/cm/default_rlimits.h"
#include "kubelet/cm/effective_pid_limit.h"

namespace podlimits::kubelet {
namespace {

AdmitResult Reject(std::string_view reason, std::string message) {
  AdmitResult r;
  r.admitted = false;
  r.reason = std::string(reason);
  r.message = std::move(message);
  return r;
}

AdmitResult FeatureMissing(std::string message) {
  return Reject(kReasonFailedNodeDeclaredFeaturesCheck, std::move(message));
}

void ForEachContainer(const api::PodSpec& spec,
                      const std::function<bool(const api::Container&)>& fn) {
  for (const auto* list : {&spec.init_containers, &spec.containers, &spec.ephemeral_containers}) {
    for (const auto& c : *list) {
      if (!fn(c)) return;
    }
  }
}

bool SetsUlimits(const api::Container& c) {
  return c.security_context && c.security_context->ulimits && !c.security_context->ulimits->empty();
}

std::optional<std::string> PidLimitProblem(const api::Pod& pod, const FeatureDeclaration& f) {
  if (f.Declared() || PodPIDLimit(pod) <= 0) return std::nullopt;
  if (f.missing == Missing::kCgroupV2) {
    return fmt::format(
        "per-pod PID limit requires cgroupsv2, but this node is running cgroupsv1; pod {} "
        "specifies spec.resources.limits.pid",
        pod.metadata.name);
  }
  return fmt::format(
      "pod {} specifies spec.resources.limits.pid, but this node does not declare {}: {}",
      pod.metadata.name, f.name, f.reason);
}

std::optional<std::string> WritableProblem(const api::Container& c, const FeatureDeclaration& f) {
  if (f.Declared() || !c.HasWritableCgroup()) return std::nullopt;
  switch (f.missing) {
    case Missing::kCgroupV2:
      return "CgroupOptions.MountMode=Writable requires cgroup v2";
    case Missing::kNsdelegate:
      return "CgroupOptions.MountMode=Writable requires the cgroup2 filesystem to be mounted "
             "with nsdelegate";
    case Missing::kRuntime:
      return fmt::format(
          "container {} requires CgroupOptions but the container runtime does not support it",
          field::GoQuote(c.name));
    default:
      return fmt::format(
          "container {} requires CgroupOptions but this node does not declare {}: "
          "{}",
          field::GoQuote(c.name), f.name, f.reason);
  }
}

std::optional<std::string> UlimitsProblem(const api::Container& c, const FeatureDeclaration& f) {
  if (f.Declared() || !SetsUlimits(c)) return std::nullopt;
  return fmt::format(
      "container {} sets securityContext.ulimits, but this node does not declare {}: {}",
      field::GoQuote(c.name), f.name, f.reason);
}

}  // namespace

AdmitResult AdmitPod(const api::Pod& pod, const DeclaredFeatures& features,
                     const NodeCapabilities& caps) {
  if (auto p = PidLimitProblem(pod, features.per_pod_pid_limit)) return FeatureMissing(*p);

  std::optional<std::string> problem;
  ForEachContainer(pod.spec, [&](const api::Container& c) {
    problem = WritableProblem(c, features.supports_cgroup_options);
    return !problem;
  });
  if (problem) return FeatureMissing(*problem);
  ForEachContainer(pod.spec, [&](const api::Container& c) {
    problem = UlimitsProblem(c, features.container_ulimits);
    return !problem;
  });
  if (problem) return FeatureMissing(*problem);

  AdmitResult result;
  ForEachContainer(pod.spec, [&](const api::Container& c) {
    UlimitGrant grant = GrantUlimits(c, caps);
    if (grant.rejection) {
      problem = std::move(grant.rejection);
      return false;
    }
    // What the container does not set, it gets as on a containerd node (default_rlimits.h).
    result.ulimits[c.name] = WithDefaultRlimits(std::move(grant.granted), caps);
    for (auto& e : grant.warnings) result.events.push_back(std::move(e));
    return true;
  });
  if (problem) return Reject(kReasonUlimitExceedsNodeCeiling, std::move(*problem));
  return result;
}

}  // namespace podlimits::kubelet
