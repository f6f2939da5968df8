// A pod's resolver configuration, as the kubelet's DNS configurer computes it
// (pkg/kubelet/network/dns, GetPodDNS) and containerd writes it into the sandbox's resolv.conf.
//
//   dnsPolicy None                 only spec.dnsConfig
//   ClusterFirst (not hostNetwork) the node's clusterDNS servers, the cluster search domains
//   ClusterFirstWithHostNet        (<ns>.svc.<domain>, svc.<domain>, <domain>) before the
//                                  host's, and ndots:5; with no clusterDNS configured: a
//                                  MissingClusterDNS Warning and the Default policy
//   Default (and ClusterFirst with hostNetwork)
//                                  the node's resolvConf (nameservers, last search line, last
//                                  options line); with resolvConf "" nameserver 127.0.0.1 and
//                                  search "."
//
// spec.dnsConfig is then appended (nameservers and searches without duplicates, options merged
// by name with the pod's winning) and the result trimmed to the resolver's limits (3
// nameservers, 32 search paths of at most 253 characters, 2048 characters in all) with the
// kubelet's DNSConfigForming Warning.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "kubelet/events/events.h"
#include "kubelet/config/node_config.h"

namespace podlimits::kubelet {

// The CRI's DNSConfig.
struct DnsConfig {
  std::vector<std::string> servers;
  std::vector<std::string> searches;
  std::vector<std::string> options;  // "ndots:5", "rotate"

  bool Empty() const { return servers.empty() && searches.empty() && options.empty(); }
  bool operator==(const DnsConfig&) const = default;
};

// parseResolvConf: nameservers accumulate; the last search line and the last options line win;
// search domains lose one trailing dot. `errors` gets "nameserver list is empty " for a bare
// nameserver line, as the kubelet's aggregate says it.
DnsConfig ParseResolvConf(std::string_view text, std::vector<std::string>* errors = nullptr);

struct PodDns {
  DnsConfig config;
  std::vector<Event> events;  // MissingClusterDNS, DNSConfigForming
};

// GetPodDNS for `pod`. `host_resolv_conf` is the text of settings.resolv_conf (unused when that
// is ""). `pod_description` is the kubelet's format.Pod ("name_namespace(uid)").
// Fails with the kubelet's message when the node's resolv.conf has a bare nameserver line.
Result<PodDns> MakePodDns(const DnsSettings& settings, const api::Pod& pod,
                          std::string_view host_resolv_conf, std::string_view pod_description);

// The sandbox's resolv.conf as containerd writes it (parseDNSOptions): "search a b",
// "nameserver x" lines, "options o p". Empty for an empty config: containerd then copies the
// node's /etc/resolv.conf instead.
std::string ResolvConfContent(const DnsConfig& config);

}  // namespace podlimits::kubelet
