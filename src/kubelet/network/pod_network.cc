#include "kubelet/network/pod_network.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "base/fs.h"

namespace podlimits::kubelet {
namespace fs = std::filesystem;

std::vector<cni::PortMapping> PodPortMappings(const api::Pod& pod) {
  std::vector<cni::PortMapping> out;
  for (const auto* list : {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const api::Container& c : *list) {
      for (const api::ContainerPort& p : c.ports) {
        if (!p.host_port || *p.host_port <= 0) continue;
        cni::PortMapping m;
        m.host_port = *p.host_port;
        m.container_port = p.container_port;
        m.protocol = p.protocol.empty() ? "TCP" : p.protocol;
        std::transform(m.protocol.begin(), m.protocol.end(), m.protocol.begin(),
                       [](unsigned char ch) { return std::tolower(ch); });
        m.host_ip = p.host_ip;
        out.push_back(std::move(m));
      }
    }
  }
  return out;
}

PodNetwork::PodNetwork(PodNetworkSettings settings, std::string pod_cidr, fs::path state_dir)
    : settings_(std::move(settings)), pod_cidr_(std::move(pod_cidr)),
      state_dir_(std::move(state_dir)) {
  for (const auto& d : settings_.bin_dirs) bin_dirs_.emplace_back(d);
}

Result<cni::NetworkConfigList> PodNetwork::Network() const {
  const fs::path dir = settings_.conf_dir;
  auto loaded = cni::LoadNetworkConfig(dir);
  if (!loaded) return std::unexpected(loaded.error());
  if (!*loaded) {
    // The first start on this node: podlimits' own network, written where an administrator
    // finds and may replace it. Written atomically: two pods starting at once write the same.
    cni::DefaultNetwork network;
    network.subnet = pod_cidr_;
    network.ipam_data_dir = state_dir_ / "cni" / "networks";
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return SystemError("create CNI configuration directory", dir, ec.value());
    const fs::path file = dir / cni::kDefaultConfigFile;
    if (auto w = WriteFileAtomically(file, cni::DefaultNetworkConfigList(network), 0644); !w) {
      return std::unexpected(w.error());
    }
    loaded = cni::LoadNetworkConfig(dir);
    if (!loaded) return std::unexpected(loaded.error());
    if (!*loaded) return Failure("read CNI network configuration", file, "vanished after writing");
  }
  // Every plugin must be there before any pod relies on the network.
  for (const auto& plugin : (*loaded)->plugins) {
    if (auto found = cni::FindPlugin(plugin.type, bin_dirs_); !found) {
      return std::unexpected(
          std::move(found.error()).Wrap(fmt::format("network \"{}\" of {}", (*loaded)->name,
                                                    (*loaded)->source.string())));
    }
  }
  return std::move(**loaded);
}

Result<std::vector<std::string>> PodNetwork::SetUp(const api::Pod& pod, const std::string& uid,
                                                   pid_t holder_pid, const fs::path& pod_dir) const {
  auto network = Network();
  if (!network) return std::unexpected(network.error());
  cni::Attachment attachment;
  attachment.network = network->raw;
  attachment.container_id = uid;
  attachment.ifname = std::string(kPodInterface);
  attachment.netns = fmt::format("/proc/{}/ns/net", holder_pid);
  // The kubelet's CNI_ARGS (what plugins such as host-local's static IPs and Calico read).
  attachment.args = {{"IgnoreUnknown", "1"},
                     {"K8S_POD_NAMESPACE", pod.metadata.namespace_},
                     {"K8S_POD_NAME", pod.metadata.name},
                     {"K8S_POD_INFRA_CONTAINER_ID", uid},
                     {"K8S_POD_UID", uid}};
  attachment.port_mappings = PodPortMappings(pod);
  if (!attachment.port_mappings.empty() && !network->PortMappings()) {
    return Failure(fmt::format("the pod has hostPorts, and no plugin of network \"{}\" ({}) "
                               "has the portMappings capability",
                               network->name, network->source.string()));
  }
  // The record first: a run killed during the ADD leaves what its DEL needs.
  const fs::path record = pod_dir / kNetworkRecordFile;
  if (auto w = WriteFileAtomically(record, cni::EncodeAttachment(attachment), 0600); !w) {
    return std::unexpected(w.error());
  }
  auto result = cni::AddNetwork(attachment, bin_dirs_);
  if (!result) {
    // AddNetwork undid its half-made attachment. One more DEL (plugins take it any number of
    // times) removes the record, or keeps it if that DEL fails too, so the pod's teardown or a
    // later cleanup tries again rather than leaving an address behind.
    (void)TearDownPodNetwork(pod_dir, bin_dirs_, true);
    return std::unexpected(result.error());
  }
  attachment.result = *result;
  if (auto w = WriteFileAtomically(record, cni::EncodeAttachment(attachment), 0600); !w) {
    return std::unexpected(w.error());
  }
  auto ips = cni::ResultIps(*result, kPodInterface);
  if (ips.empty()) {
    return Failure(fmt::format("network \"{}\" gave the pod no IP address", network->name));
  }
  return ips;
}

Result<void> TearDownPodNetwork(const fs::path& pod_dir, const std::vector<fs::path>& bin_dirs,
                                bool namespace_alive) {
  const fs::path record = pod_dir / kNetworkRecordFile;
  auto text = ReadSmallFile(record, 4 << 20);
  if (!text) {
    if (text.error().errno_value == ENOENT) return {};
    return std::unexpected(text.error());
  }
  auto attachment = cni::DecodeAttachment(*text, record.string());
  if (!attachment) return std::unexpected(attachment.error());
  auto deleted = cni::DelNetwork(*attachment, bin_dirs,
                                 namespace_alive ? std::nullopt : std::optional<std::string>(""));
  if (!deleted) return std::unexpected(std::move(deleted.error()).Wrap("tear down pod network"));
  if (unlink(record.c_str()) != 0 && errno != ENOENT) {
    return SystemError("unlink", record, errno);
  }
  return {};
}

}  // namespace podlimits::kubelet
