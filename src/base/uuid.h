// Random identifiers: object uids (metadata.uid, a version-4 UUID as the apiserver and the
// kubelet mint them) and container ids (64 hex digits, as runc and containerd use).
#pragma once

#include <string>

namespace podlimits {

// A random version-4 UUID, "0b6c1f3e-....-4...-[89ab]...-............".
std::string NewUuid();

// A random id of 64 hex digits.
std::string NewContainerId();

}  // namespace podlimits
