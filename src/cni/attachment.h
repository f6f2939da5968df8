// A sandbox's attachment to a CNI network, and its undoing (libcni's AddNetworkList and
// DelNetworkList with its result cache).
//
// The record is what a DEL needs, written before the ADD runs and again with its result: the
// network as it was attached (not as the configuration directory says later), the container
// ID, interface, CNI_ARGS and port mappings. A later process (a pod monitor after a crash, the
// stale-pod cleanup) undoes an attachment from the record alone, so addresses and portmap
// rules are given back even when the process that made them was killed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "cni/network_config.h"
#include "cni/plugin_call.h"
#include "codec/node.h"

namespace podlimits::cni {

// One hostPort, as the portMappings capability passes it (CRI's PortMapping).
struct PortMapping {
  int host_port = 0;
  int container_port = 0;
  std::string protocol = "tcp";  // lower case, as the kubelet hands it to CNI
  std::string host_ip;
  bool operator==(const PortMapping&) const = default;
};

struct Attachment {
  codec::Node network;  // the configuration list as attached
  std::string container_id;
  std::string ifname = "eth0";
  std::string netns;
  std::vector<std::pair<std::string, std::string>> args;
  std::vector<PortMapping> port_mappings;
  std::optional<codec::Node> result;  // the last plugin's ADD result, once the ADD succeeded
};

std::string EncodeAttachment(const Attachment& attachment);
Result<Attachment> DecodeAttachment(std::string_view text, std::string_view source);

// The configuration plugin `index` of the attachment's network reads: its object with the
// network's name and cniVersion, runtimeConfig for the capabilities it declares, and
// `prev_result` (libcni's buildOneConfig).
std::string PluginConfig(const Attachment& attachment, std::size_t index,
                         const codec::Node* prev_result);

// ADD through every plugin in order, each getting the previous one's result. On a failure the
// plugins already called are sent DEL (in reverse order) before the error returns, so a failed
// ADD leaves no address or rule behind.
Result<codec::Node> AddNetwork(const Attachment& attachment,
                             const std::vector<std::filesystem::path>& bin_dirs);

// DEL through every plugin in reverse order, with the cached result as prevResult. Every plugin
// is called even after one fails; the errors are joined. `netns` overrides the record's ("":
// the namespace is gone, which plugins accept on DEL).
Result<void> DelNetwork(const Attachment& attachment,
                        const std::vector<std::filesystem::path>& bin_dirs,
                        std::optional<std::string> netns = std::nullopt);

// The addresses of an ADD result (without prefix length), those on the sandbox's `ifname`
// first, IPv4 before IPv6: what the pod's podIPs become.
std::vector<std::string> ResultIps(const codec::Node& result, std::string_view ifname);

}  // namespace podlimits::cni
