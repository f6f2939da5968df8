// podStrategy.WarningsOnCreate (pkg/registry/core/pod/strategy.go) and the parts of
// GetWarningsForPod (pkg/api/pod/warnings.go) about fields podlimits reads.
#pragma once

#include <string>
#include <vector>

#include "api/objects.h"

namespace podlimits::validation {

// In upstream's order: metadata.name not a DNS label; deprecated annotations
// (scheduler.alpha.kubernetes.io/critical-pod, security.alpha.kubernetes.io/[unsafe-]sysctls);
// deprecated or removed volume plugins; fractional byte values of spec.overhead; the pod seccomp
// annotation without spec.securityContext.seccompProfile; then per container (init, regular,
// ephemeral) its seccomp annotation without the field and fractional memory / ephemeral-storage
// limits and requests. (The AppArmor annotation warnings of a Pod come from PrepareForCreate.)
std::vector<std::string> WarningsOnCreate(const api::Pod& pod);

}  // namespace podlimits::validation
