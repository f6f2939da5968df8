// The pod's network, as the kubelet's runtime sets it up in RunPodSandbox (containerd's CRI
// plugin calling CNI): once the sandbox's holder has made the pod's network namespace and
// before any container, the node's CNI network is attached to it (ADD, interface eth0); after
// the last container and before the holder goes, it is detached (DEL).
//
// The node's network is the first configuration of podNetwork.confDir (cni/network_config.h);
// when the directory has none, podlimits writes its own there (a bridge on the node, addresses
// from podCIDR, portmap) on the first start. The attachment is recorded in
// <pod_dir>/network.json before the ADD and with its result after (cni/attachment.h): a run
// that dies leaves the record, and whoever cleans up after it (stale_pods.h) gives the address
// and the portmap rules back from that record, with the network namespace gone.
//
// Only with podNetwork.plugin cni; with none, a pod's network namespace has loopback only.
// hostNetwork pods use the node's network and are never attached.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "cni/attachment.h"
#include "cni/network_config.h"
#include "kubelet/config/node_config.h"

namespace podlimits::kubelet {

inline constexpr std::string_view kNetworkRecordFile = "network.json";
inline constexpr std::string_view kPodInterface = "eth0";

// The hostPorts of a pod, as the kubelet hands them to CNI's portMappings.
std::vector<cni::PortMapping> PodPortMappings(const api::Pod& pod);

class PodNetwork {
 public:
  PodNetwork(PodNetworkSettings settings, std::string pod_cidr,
             std::filesystem::path state_dir);

  // The node's network: the first configuration of confDir, after writing podlimits' default
  // there if it held none. An error means no pod can get a network (the kubelet's
  // NetworkPluginNotReady): the directory's first file is broken, or a plugin is missing.
  Result<cni::NetworkConfigList> Network() const;

  // Attaches `pod` (through its holder's network namespace) and returns its addresses.
  Result<std::vector<std::string>> SetUp(const api::Pod& pod, const std::string& uid,
                                         pid_t holder_pid,
                                         const std::filesystem::path& pod_dir) const;

  const std::vector<std::filesystem::path>& bin_dirs() const { return bin_dirs_; }

 private:
  PodNetworkSettings settings_;
  std::string pod_cidr_;
  std::filesystem::path state_dir_;
  std::vector<std::filesystem::path> bin_dirs_;
};

// Detaches what <pod_dir>/network.json records, and removes the record. No record: nothing was
// attached. `namespace_alive` false when the pod's network namespace is gone (a dead run's
// leftovers): the plugins then only give back addresses and rules.
Result<void> TearDownPodNetwork(const std::filesystem::path& pod_dir,
                                const std::vector<std::filesystem::path>& bin_dirs,
                                bool namespace_alive);

}  // namespace podlimits::kubelet
