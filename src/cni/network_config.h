// A CNI network configuration as a runtime reads it (CNI spec 1.0, "Network configuration
// format"; libcni's ConfFiles and LoadConfList):
//
//   {"cniVersion": "1.0.0", "name": "podlimits", "plugins": [{"type": "bridge", ...}, ...]}
//
// A `.conf` / `.json` file holding one plugin's object (with "type") is read as a list of that
// one plugin, as libcni's ConfListFromConf does. The network a node uses is the first file of
// its configuration directory by name, as the kubelet's and containerd's CNI setup picks it;
// a first file that cannot be read is an error naming it, never a silent fall back to the next.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "codec/node.h"

namespace podlimits::cni {

struct NetworkPlugin {
  std::string type;             // the plugin binary's name
  codec::Node conf;               // its object as written
  bool port_mappings = false;   // "capabilities": {"portMappings": true}
};

struct NetworkConfigList {
  std::filesystem::path source;  // the file it came from ("" when parsed from text)
  std::string cni_version;
  std::string name;
  std::vector<NetworkPlugin> plugins;
  codec::Node raw;  // the whole list, a single plugin's file made into a list

  // Whether some plugin takes port mappings (hostPort): portmap's capability.
  bool PortMappings() const;
};

// Errors name `source` and what is wrong (`10-x.conflist: plugins[1]: missing "type"`).
Result<NetworkConfigList> ParseNetworkConfig(std::string_view text,
                                             const std::filesystem::path& source);

// The first *.conf, *.conflist or *.json file of `dir` by name, parsed; nullopt when there is
// none (or `dir` does not exist).
Result<std::optional<NetworkConfigList>> LoadNetworkConfig(const std::filesystem::path& dir);

// The network podlimits writes when the directory holds none: a node-local bridge with
// host-local addresses, the node as the pods' gateway, no masquerading (pods reach the node and
// each other; traffic off the machine is the administrator's choice, in a conflist of their
// own), and portmap for hostPort.
struct DefaultNetwork {
  std::string name = "podlimits";
  std::string bridge = "podlimits0";
  std::string subnet = "10.244.0.0/16";
  std::filesystem::path ipam_data_dir;  // host-local's dataDir: the addresses handed out
};
inline constexpr std::string_view kDefaultConfigFile = "10-podlimits.conflist";
std::string DefaultNetworkConfigList(const DefaultNetwork& network);

}  // namespace podlimits::cni
