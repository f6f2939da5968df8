// The node's name and address as the kubelet reports it without a cloud provider: the first IPv4 address
// of an interface that is up and not loopback (else 127.0.0.1), the pods' hostIP.
#pragma once

#include <string>

namespace podlimits::nodeagent {

std::string NodeInternalIp();

// The node's name: the host name, lowercased (the kubelet's default --hostname-override).
std::string NodeName();

}  // namespace podlimits::nodeagent
