// The kubelet's sysctl admission (pkg/kubelet/sysctl): a pod's spec.securityContext.sysctls must
// be in the safe set or match the node's allowedUnsafeSysctls, and a sysctl of the network or IPC
// namespace is refused when the pod shares the node's (hostNetwork / hostIPC). A refused pod gets
// reason SysctlForbidden and `forbidden sysctl: "net.core.somaxconn" not allowlisted` (or `...
// not allowed with host net enabled`). Names with '/' are normalised to '.' first.
//
// allowedUnsafeSysctls entries are names or prefixes ending in '*' of namespaced sysctls only
// (kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*); anything else is a configuration
// error, as the kubelet refuses to start with it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"
#include "base/error.h"

namespace podlimits::kubelet {

inline constexpr std::string_view kReasonSysctlForbidden = "SysctlForbidden";

// The safe sysctls of Kubernetes 1.32 (every one namespaced).
const std::vector<std::string>& SafeSysctls();

// "ipc", "net", or "" for a sysctl of no namespace podlimits gives a pod.
std::string_view SysctlNamespace(std::string_view name);

// "net/ipv4/ip_forward" -> "net.ipv4.ip_forward" (the kubelet's NormalizeName).
std::string NormalizeSysctlName(std::string_view name);

// The errors of an allowedUnsafeSysctls list, one per bad entry.
std::vector<std::string> ValidateAllowedUnsafeSysctls(const std::vector<std::string>& allowed);

// Why `pod`'s sysctls are refused on a node allowing `allowed_unsafe`: the message after
// "forbidden sysctl: ", or nullopt when every one is allowed.
std::optional<std::string> ForbiddenSysctl(const api::Pod& pod,
                                           const std::vector<std::string>& allowed_unsafe);

}  // namespace podlimits::kubelet
