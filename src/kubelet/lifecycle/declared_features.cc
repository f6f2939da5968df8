#include "kubelet/lifecycle/declared_features.h"

#include <fmt/format.h>

#include "kubelet/cm/effective_pid_limit.h"

namespace podlimits::kubelet {
namespace {

void Set(FeatureDeclaration& f, Missing missing, std::string reason) {
  f.missing = missing;
  f.reason = std::move(reason);
}

std::string GateOff(std::string_view gate) {
  return fmt::format("the {} feature gate is disabled", gate);
}

std::string NotV2(const NodeCapabilities& caps) {
  return fmt::format("cgroup v2 is required; this node's cgroup mode is {}", CgroupModeText(caps));
}

std::string NoRuntime(const NodeCapabilities& caps, std::string_view what) {
  if (!caps.runtime.Found()) {
    return caps.runtime.error.empty() ? std::string("no OCI runtime was found")
                                      : caps.runtime.error;
  }
  if (!caps.runtime.unusable.empty()) return caps.runtime.unusable;
  return fmt::format("the OCI runtime {} does not {}", caps.runtime.name, what);
}

// A runtime `run` refuses on this node enforces nothing here, whatever it could do elsewhere.
bool Usable(const NodeCapabilities& caps) {
  return caps.runtime.Found() && caps.runtime.unusable.empty();
}

}  // namespace

std::vector<std::string_view> RequiredFeatures(const api::Pod& pod) {
  bool ulimits = false;
  bool writable = false;
  for (const auto* list : {&pod.spec.init_containers, &pod.spec.containers,
                           &pod.spec.ephemeral_containers}) {
    for (const api::Container& c : *list) {
      const auto& sc = c.security_context;
      ulimits = ulimits || (sc && sc->ulimits && !sc->ulimits->empty());
      writable = writable || c.HasWritableCgroup();
    }
  }
  std::vector<std::string_view> out;  // in name order, as DeclaredFeatures::Names
  if (ulimits) out.push_back(kFeatureContainerUlimits);
  if (PodPIDLimit(pod) > 0) out.push_back(kFeaturePerPodPIDLimit);
  if (writable) out.push_back(kFeatureSupportsCgroupOptions);
  return out;
}

std::string_view CgroupModeText(const NodeCapabilities& caps) {
  return caps.cgroup_mode ? cgroups::Name(*caps.cgroup_mode) : std::string_view("unknown");
}

std::vector<const FeatureDeclaration*> DeclaredFeatures::All() const {
  return {&container_ulimits, &per_pod_pid_limit, &supports_cgroup_options};
}

std::vector<std::string> DeclaredFeatures::Names() const {
  std::vector<std::string> out;
  for (const auto* f : All()) {
    if (f->Declared()) out.emplace_back(f->name);
  }
  return out;
}

DeclaredFeatures DeclareFeatures(const validation::FeatureGates& gates,
                                 const NodeCapabilities& caps) {
  DeclaredFeatures d;

  if (!gates.per_pod_pid_limit) {
    Set(d.per_pod_pid_limit, Missing::kGate, GateOff("PerPodPIDLimit"));
  } else if (!caps.CgroupV2()) {
    Set(d.per_pod_pid_limit, Missing::kCgroupV2, NotV2(caps));
  }

  if (!gates.container_ulimits) {
    Set(d.container_ulimits, Missing::kGate, GateOff("ContainerUlimits"));
  } else if (!caps.runtime.applies_rlimits || !Usable(caps)) {
    Set(d.container_ulimits, Missing::kRuntime, NoRuntime(caps, "apply rlimits"));
  }

  FeatureDeclaration& cg = d.supports_cgroup_options;
  if (!gates.cgroup_options) {
    Set(cg, Missing::kGate, GateOff("CgroupOptions"));
  } else if (!caps.CgroupV2()) {
    Set(cg, Missing::kCgroupV2, NotV2(caps));
  } else if (!caps.nsdelegate) {
    Set(cg, Missing::kNsdelegate, "the cgroup2 filesystem is not mounted with nsdelegate");
  } else if (!caps.runtime.supports_writable_cgroups || !Usable(caps)) {
    Set(cg, Missing::kRuntime,
        Usable(caps) ? std::string("the container runtime does not support CgroupOptions")
                     : NoRuntime(caps, ""));
  }
  return d;
}

}  // namespace podlimits::kubelet
