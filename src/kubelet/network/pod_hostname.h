// A pod's names as the kubelet gives them (GeneratePodHostNameAndDomain, GetNodenameForKernel)
// and the /etc/hosts it manages for the pod's containers (kubelet_pods.go makeHostsMount).
//
//   hostname  spec.hostname or the pod's name, truncated to 63 characters as the kubelet does
//   domain    <subdomain>.<namespace>.svc.<clusterDomain> when spec.subdomain is set
//   kernel    hostname, or hostname.domain with setHostnameAsFQDN (64 characters at most)
//
// /etc/hosts of a pod with its own network: "# Kubernetes-managed hosts file.", the localhost
// and IPv6 lines, a line per pod IP naming the pod (with its FQDN when it has a domain), then
// "# Entries added by HostAliases." and one line per alias. With hostNetwork: the node's
// /etc/hosts under "# Kubernetes-managed hosts file (host network).", then the aliases.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"
#include "base/error.h"

namespace podlimits::kubelet {

struct PodHostnames {
  std::string hostname;  // the short name: /etc/hosts, HOSTNAME before FQDN
  std::string domain;    // "" without spec.subdomain
  std::string kernel;    // what the UTS namespace gets (and /etc/hostname)
};

// Fails with the kubelet's message when setHostnameAsFQDN makes a name over 64 characters.
Result<PodHostnames> MakePodHostnames(const api::Pod& pod, std::string_view cluster_domain);

// managedHostsFileContent.
std::string ManagedHostsFile(const std::vector<std::string>& pod_ips, const PodHostnames& names,
                             const std::vector<api::HostAlias>& aliases);

// nodeHostsFileContent: `node_hosts` is the text of the node's /etc/hosts.
std::string NodeHostsFile(std::string_view node_hosts, const std::vector<api::HostAlias>& aliases);

}  // namespace podlimits::kubelet
