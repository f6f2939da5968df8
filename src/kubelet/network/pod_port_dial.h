// Where `kubectl port-forward` ends on the node: a TCP connection to a port on the pod's own
// loopback, made in the pod sandbox's network namespace (the node's with hostNetwork), as
// containerd's PortForward makes it.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/error.h"
#include "base/unique_fd.h"

namespace podlimits::kubelet {

// localhost:`port` over IPv4, else over IPv6, from the namespace of `sandbox_pid`. The error is
// the kubelet's around containerd's: `error forwarding port 80 to pod <sandbox id>, uid :
// failed to connect to localhost:80 inside namespace "<sandbox id>", IPv4: dial tcp4
// 127.0.0.1:80: connect: connection refused IPv6 dial tcp6 [::1]:80: connect: ...`.
Result<UniqueFd> DialPodPort(pid_t sandbox_pid, const std::string& sandbox_id, int port);

}  // namespace podlimits::kubelet
