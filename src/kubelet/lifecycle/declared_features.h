// The features this node declares (KEP-5328 node.status.declaredFeatures): each only when its
// gate is on and the node can really enforce it.
//
//   PerPodPIDLimit         gate PerPodPIDLimit, cgroup v2 (KEP-6063)
//   ContainerUlimits       gate ContainerUlimits, an OCI runtime that applies rlimits and that
//                          `run` can use on this node (KEP-5758)
//   SupportsCgroupOptions  gate CgroupOptions, cgroup v2, nsdelegate on the cgroup2 mount, and a
//                          runtime that mounts cgroup2 writable (KEP-5474)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"
#include "kubelet/cm/node_capabilities.h"
#include "validation/feature_gates.h"

namespace podlimits::kubelet {

inline constexpr std::string_view kFeaturePerPodPIDLimit = "PerPodPIDLimit";
inline constexpr std::string_view kFeatureContainerUlimits = "ContainerUlimits";
inline constexpr std::string_view kFeatureSupportsCgroupOptions = "SupportsCgroupOptions";

// Why a feature is not declared.
enum class Missing {
  kNone,        // declared
  kGate,        // its feature gate is off
  kCgroupV2,    // the node does not run cgroup v2 (v1, hybrid or unknown)
  kNsdelegate,  // the cgroup2 mount lacks nsdelegate
  kRuntime,     // no runtime, or one that cannot do it
};

struct FeatureDeclaration {
  std::string_view name;
  Missing missing = Missing::kNone;
  std::string reason;  // human text for `missing`; "" when declared

  bool Declared() const { return missing == Missing::kNone; }
};

struct DeclaredFeatures {
  FeatureDeclaration per_pod_pid_limit{kFeaturePerPodPIDLimit, Missing::kNone, {}};
  FeatureDeclaration container_ulimits{kFeatureContainerUlimits, Missing::kNone, {}};
  FeatureDeclaration supports_cgroup_options{kFeatureSupportsCgroupOptions, Missing::kNone, {}};

  // The three, in name order.
  std::vector<const FeatureDeclaration*> All() const;
  // The declared names, sorted (as node.status.declaredFeatures must be).
  std::vector<std::string> Names() const;
};

DeclaredFeatures DeclareFeatures(const validation::FeatureGates& gates,
                                 const NodeCapabilities& caps);

// What a pod needs a node to declare (the ndf library's InferForPodScheduling, for the three
// features above), in name order: PerPodPIDLimit for spec.resources.limits.pid, ContainerUlimits
// for a container (init, app or ephemeral) that sets securityContext.ulimits, and
// SupportsCgroupOptions for one with a writable cgroup mount. The scheduler filters on it; node
// admission (node_admission.h) checks the same rules with its own messages.
std::vector<std::string_view> RequiredFeatures(const api::Pod& pod);

// "v1", "hybrid", "v2", or "unknown".
std::string_view CgroupModeText(const NodeCapabilities& caps);

}  // namespace podlimits::kubelet
