#include "cni/attachment.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codec/json_codec.h"

namespace podlimits::cni {
namespace fs = std::filesystem;
using codec::Node;

namespace {

Node PortMappingsNode(const std::vector<PortMapping>& mappings) {
  Node list = Node::Array();
  for (const auto& m : mappings) {
    Node entry = Node::Object();
    entry.Set("hostPort", Node::Int(m.host_port));
    entry.Set("containerPort", Node::Int(m.container_port));
    entry.Set("protocol", Node::String(m.protocol));
    if (!m.host_ip.empty()) entry.Set("hostIP", Node::String(m.host_ip));
    list.items.push_back(std::move(entry));
  }
  return list;
}

std::unexpected<Error> Bad(std::string_view source, std::string detail) {
  return Failure("read CNI attachment record", std::string(source), std::move(detail));
}

}  // namespace

std::string EncodeAttachment(const Attachment& a) {
  Node root = Node::Object();
  root.Set("network", a.network);
  root.Set("containerID", Node::String(a.container_id));
  root.Set("ifName", Node::String(a.ifname));
  root.Set("netns", Node::String(a.netns));
  Node args = Node::Array();
  for (const auto& [k, v] : a.args) {
    Node pair = Node::Array();
    pair.items.push_back(Node::String(k));
    pair.items.push_back(Node::String(v));
    args.items.push_back(std::move(pair));
  }
  root.Set("args", std::move(args));
  root.Set("portMappings", PortMappingsNode(a.port_mappings));
  if (a.result) root.Set("result", *a.result);
  return codec::EncodeJson(root, 2) + "\n";
}

Result<Attachment> DecodeAttachment(std::string_view text, std::string_view source) {
  auto nodes = codec::ParseJsonStream(text);
  if (!nodes || nodes->size() != 1 || !(*nodes)[0].IsObject()) {
    return Bad(source, "not one JSON object");
  }
  const Node& root = (*nodes)[0];
  Attachment a;
  const Node* network = root.Find("network");
  if (!network || !network->IsObject()) return Bad(source, "missing \"network\"");
  // The network as recorded must still be a valid list: DEL walks its plugins.
  if (auto list = ParseNetworkConfig(codec::EncodeJson(*network, 0), std::string(source)); !list) {
    return std::unexpected(list.error());
  }
  a.network = *network;
  a.container_id = codec::StringOf(root.Find("containerID"));
  if (a.container_id.empty()) return Bad(source, "missing \"containerID\"");
  a.ifname = codec::StringOf(root.Find("ifName"));
  a.netns = codec::StringOf(root.Find("netns"));
  if (const Node* args = root.Find("args"); args && args->IsArray()) {
    for (const auto& pair : args->items) {
      if (!pair.IsArray() || pair.items.size() != 2) return Bad(source, "malformed \"args\"");
      a.args.emplace_back(pair.items[0].scalar, pair.items[1].scalar);
    }
  }
  if (const Node* ports = root.Find("portMappings"); ports && ports->IsArray()) {
    for (const auto& p : ports->items) {
      PortMapping m;
      m.host_port = static_cast<int>(codec::IntOf(p.Find("hostPort")).value_or(0));
      m.container_port = static_cast<int>(codec::IntOf(p.Find("containerPort")).value_or(0));
      m.protocol = codec::StringOf(p.Find("protocol"));
      m.host_ip = codec::StringOf(p.Find("hostIP"));
      a.port_mappings.push_back(std::move(m));
    }
  }
  if (const Node* result = root.Find("result"); result && result->IsObject()) a.result = *result;
  return a;
}

std::string PluginConfig(const Attachment& a, std::size_t index, const Node* prev_result) {
  const Node* plugins = a.network.Find("plugins");
  Node conf = plugins->items.at(index);
  conf.Set("name", Node::String(codec::StringOf(a.network.Find("name"))));
  conf.Set("cniVersion", Node::String(codec::StringOf(a.network.Find("cniVersion"))));
  // runtimeConfig carries only the capabilities the plugin declares (libcni's
  // injectRuntimeConfig), and portMappings only when there are some.
  const Node* caps = conf.Find("capabilities");
  if (caps && caps->IsObject() && caps->Find("portMappings") &&
      caps->Find("portMappings")->AsBool() && !a.port_mappings.empty()) {
    Node runtime = Node::Object();
    runtime.Set("portMappings", PortMappingsNode(a.port_mappings));
    conf.Set("runtimeConfig", std::move(runtime));
  }
  if (prev_result) conf.Set("prevResult", *prev_result);
  return codec::EncodeJson(conf, 0);
}

namespace {

PluginCall CallOf(const Attachment& a, std::string command, const std::vector<fs::path>& bin_dirs) {
  PluginCall call;
  call.command = std::move(command);
  call.container_id = a.container_id;
  call.netns = a.netns;
  call.ifname = a.ifname;
  call.args = a.args;
  call.bin_dirs = bin_dirs;
  return call;
}

std::string TypeOf(const Attachment& a, std::size_t index) {
  return codec::StringOf(a.network.Find("plugins")->items[index].Find("type"));
}

Result<void> DelPlugins(const Attachment& a, std::size_t count, const std::vector<fs::path>& bin_dirs,
                        const std::string& netns, const Node* result) {
  PluginCall call = CallOf(a, "DEL", bin_dirs);
  call.netns = netns;
  std::vector<std::string> errors;
  for (std::size_t i = count; i-- > 0;) {
    auto done = CallPlugin(call, TypeOf(a, i), PluginConfig(a, i, result));
    if (!done) errors.push_back(done.error().Message());
  }
  if (!errors.empty()) return Failure(fmt::format("{}", fmt::join(errors, "; ")));
  return {};
}

}  // namespace

Result<Node> AddNetwork(const Attachment& a, const std::vector<fs::path>& bin_dirs) {
  const Node* plugins = a.network.Find("plugins");
  if (!plugins || !plugins->IsArray()) return Failure("CNI attachment without plugins");
  PluginCall call = CallOf(a, "ADD", bin_dirs);
  std::optional<Node> result;
  for (std::size_t i = 0; i < plugins->items.size(); ++i) {
    auto added = CallPlugin(call, TypeOf(a, i), PluginConfig(a, i, result ? &*result : nullptr));
    if (!added) {
      // Undo what the earlier plugins and this one may have half done (DEL is idempotent).
      if (auto undone = DelPlugins(a, i + 1, bin_dirs, a.netns, result ? &*result : nullptr);
          !undone) {
        return Failure(added.error().Message() + "; undoing it: " + undone.error().Message());
      }
      return std::unexpected(added.error());
    }
    result = std::move(*added);
  }
  return std::move(*result);
}

Result<void> DelNetwork(const Attachment& a, const std::vector<fs::path>& bin_dirs,
                        std::optional<std::string> netns) {
  const Node* plugins = a.network.Find("plugins");
  if (!plugins || !plugins->IsArray()) return Failure("CNI attachment without plugins");
  return DelPlugins(a, plugins->items.size(), bin_dirs, netns.value_or(a.netns),
                    a.result ? &*a.result : nullptr);
}

std::vector<std::string> ResultIps(const Node& result, std::string_view ifname) {
  // Which interface indices are the sandbox's `ifname`.
  std::vector<std::size_t> sandbox_ifaces;
  if (const Node* ifaces = result.Find("interfaces"); ifaces && ifaces->IsArray()) {
    for (std::size_t i = 0; i < ifaces->items.size(); ++i) {
      const Node& iface = ifaces->items[i];
      if (codec::StringOf(iface.Find("name")) == ifname &&
          !codec::StringOf(iface.Find("sandbox")).empty()) {
        sandbox_ifaces.push_back(i);
      }
    }
  }
  std::vector<std::string> v4, v6, other4, other6;
  auto add = [&](std::string cidr, bool on_sandbox) {
    if (auto slash = cidr.find('/'); slash != std::string::npos) cidr.resize(slash);
    if (cidr.empty()) return;
    const bool is6 = cidr.find(':') != std::string::npos;
    (on_sandbox ? (is6 ? v6 : v4) : (is6 ? other6 : other4)).push_back(std::move(cidr));
  };
  if (const Node* ips = result.Find("ips"); ips && ips->IsArray()) {
    for (const auto& ip : ips->items) {
      bool on_sandbox = sandbox_ifaces.empty();
      if (auto index = codec::IntOf(ip.Find("interface"))) {
        for (auto s : sandbox_ifaces) on_sandbox = on_sandbox || static_cast<std::int64_t>(s) == *index;
      }
      add(codec::StringOf(ip.Find("address")), on_sandbox);
    }
  }
  // A 0.2.0 result: {"ip4": {"ip": ...}, "ip6": {...}}.
  for (const char* family : {"ip4", "ip6"}) {
    if (const Node* f = result.Find(family)) add(codec::StringOf(f->Find("ip")), true);
  }
  std::vector<std::string> out = v4;
  out.insert(out.end(), v6.begin(), v6.end());
  if (out.empty()) {
    out = other4;
    out.insert(out.end(), other6.begin(), other6.end());
  }
  return out;
}

}  // namespace podlimits::cni
