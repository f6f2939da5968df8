#include "cni/network_config.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "base/fs.h"
#include "codec/json_codec.h"

namespace podlimits::cni {
namespace fs = std::filesystem;
using codec::Node;

namespace {

// libcni's network name rule (pkg/utils ValidateNetworkName) and a plugin type that can only
// name a file in the plugin directories, never a path.
bool ValidNetworkName(const std::string& name) {
  static const std::regex kName("^[a-zA-Z0-9][a-zA-Z0-9_.\\-]*$");
  return std::regex_match(name, kName);
}
bool ValidPluginType(const std::string& type) {
  static const std::regex kType("^[a-zA-Z0-9][a-zA-Z0-9_.\\-]*$");
  return std::regex_match(type, kType);
}

std::unexpected<Error> Bad(const fs::path& source, std::string detail) {
  return Failure("read CNI network configuration", source, std::move(detail));
}

Result<NetworkPlugin> ReadPlugin(const Node& conf, const fs::path& source, std::string_view where) {
  if (!conf.IsObject()) return Bad(source, fmt::format("{}: not a JSON object", where));
  const Node* type = conf.Find("type");
  if (!type || !type->IsString() || type->scalar.empty()) {
    return Bad(source, fmt::format("{}: missing \"type\"", where));
  }
  if (!ValidPluginType(type->scalar)) {
    return Bad(source, fmt::format("{}: invalid plugin type \"{}\"", where, type->scalar));
  }
  NetworkPlugin plugin{type->scalar, conf, false};
  if (const Node* caps = conf.Find("capabilities"); caps && caps->IsObject()) {
    if (const Node* pm = caps->Find("portMappings")) plugin.port_mappings = pm->AsBool();
  }
  return plugin;
}

}  // namespace

bool NetworkConfigList::PortMappings() const {
  return std::any_of(plugins.begin(), plugins.end(),
                     [](const NetworkPlugin& p) { return p.port_mappings; });
}

Result<NetworkConfigList> ParseNetworkConfig(std::string_view text, const fs::path& source) {
  auto nodes = codec::ParseJsonStream(text);
  if (!nodes) return Bad(source, "invalid JSON: " + nodes.error().message);
  if (nodes->size() != 1 || !(*nodes)[0].IsObject()) return Bad(source, "not one JSON object");
  Node raw = std::move((*nodes)[0]);
  NetworkConfigList list;
  list.source = source;
  const Node* version = raw.Find("cniVersion");
  if (!version || !version->IsString() || version->scalar.empty()) {
    return Bad(source, "missing \"cniVersion\"");
  }
  list.cni_version = version->scalar;
  const Node* name = raw.Find("name");
  if (!name || !name->IsString() || name->scalar.empty()) return Bad(source, "missing \"name\"");
  if (!ValidNetworkName(name->scalar)) {
    return Bad(source, fmt::format("invalid network name \"{}\": it must match "
                                   "^[a-zA-Z0-9][a-zA-Z0-9_.\\-]*$", name->scalar));
  }
  list.name = name->scalar;
  if (const Node* plugins = raw.Find("plugins")) {
    if (!plugins->IsArray() || plugins->items.empty()) {
      return Bad(source, "\"plugins\" must be a non-empty list");
    }
    for (std::size_t i = 0; i < plugins->items.size(); ++i) {
      auto plugin = ReadPlugin(plugins->items[i], source, fmt::format("plugins[{}]", i));
      if (!plugin) return std::unexpected(plugin.error());
      list.plugins.push_back(std::move(*plugin));
    }
  } else {
    // A single plugin's configuration: the file is the plugin (libcni's ConfListFromConf).
    auto plugin = ReadPlugin(raw, source, "the network");
    if (!plugin) return std::unexpected(plugin.error());
    list.plugins.push_back(std::move(*plugin));
    Node wrapped = Node::Object();
    wrapped.Set("cniVersion", Node::String(list.cni_version));
    wrapped.Set("name", Node::String(list.name));
    Node items = Node::Array();
    items.items.push_back(std::move(raw));
    wrapped.Set("plugins", std::move(items));
    raw = std::move(wrapped);
  }
  list.raw = std::move(raw);
  return list;
}

Result<std::optional<NetworkConfigList>> LoadNetworkConfig(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return std::optional<NetworkConfigList>();
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    if ((ext == ".conf" || ext == ".conflist" || ext == ".json") && it->is_regular_file()) {
      files.push_back(it->path());
    }
  }
  if (ec) return SystemError("list CNI configuration directory", dir, ec.value());
  if (files.empty()) return std::optional<NetworkConfigList>();
  std::sort(files.begin(), files.end());
  auto text = ReadSmallFile(files.front(), 1 << 20);
  if (!text) return std::unexpected(text.error());
  auto list = ParseNetworkConfig(*text, files.front());
  if (!list) return std::unexpected(list.error());
  return std::optional<NetworkConfigList>(std::move(*list));
}

std::string DefaultNetworkConfigList(const DefaultNetwork& network) {
  Node range = Node::Object();
  range.Set("subnet", Node::String(network.subnet));
  Node ranges = Node::Array(), set = Node::Array();
  set.items.push_back(std::move(range));
  ranges.items.push_back(std::move(set));
  Node ipam = Node::Object();
  ipam.Set("type", Node::String("host-local"));
  ipam.Set("ranges", std::move(ranges));
  Node route = Node::Object();
  route.Set("dst", Node::String("0.0.0.0/0"));
  Node routes = Node::Array();
  routes.items.push_back(std::move(route));
  ipam.Set("routes", std::move(routes));
  if (!network.ipam_data_dir.empty()) {
    ipam.Set("dataDir", Node::String(network.ipam_data_dir.string()));
  }
  Node bridge = Node::Object();
  bridge.Set("type", Node::String("bridge"));
  bridge.Set("bridge", Node::String(network.bridge));
  bridge.Set("isGateway", Node::Bool(true));
  bridge.Set("ipMasq", Node::Bool(false));
  bridge.Set("hairpinMode", Node::Bool(true));
  bridge.Set("ipam", std::move(ipam));
  Node portmap = Node::Object();
  portmap.Set("type", Node::String("portmap"));
  Node caps = Node::Object();
  caps.Set("portMappings", Node::Bool(true));
  portmap.Set("capabilities", std::move(caps));
  Node plugins = Node::Array();
  plugins.items.push_back(std::move(bridge));
  plugins.items.push_back(std::move(portmap));
  Node list = Node::Object();
  list.Set("cniVersion", Node::String("1.0.0"));
  list.Set("name", Node::String(network.name));
  list.Set("plugins", std::move(plugins));
  return codec::EncodeJson(list, 2) + "\n";
}

}  // namespace podlimits::cni
