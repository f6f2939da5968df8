#include "kubelet/network/pod_etc_files.h"

#include <algorithm>

#include "base/fs.h"
#include "cri/oci_process.h"

namespace podlimits::kubelet {

namespace fs = std::filesystem;

namespace {

// The kubelet's maxResolveConfLength; /etc/hosts gets the same bound.
constexpr std::size_t kMaxNodeFileBytes = 10 << 20;

constexpr std::string_view kHostsFile = "etc-hosts";
constexpr std::string_view kHostnameFile = "hostname";
constexpr std::string_view kResolvConfFile = "resolv.conf";

}  // namespace

Result<PodNameResolution> MakePodNameResolution(const api::Pod& pod, const DnsSettings& dns,
                                                const std::vector<std::string>& pod_ips,
                                                std::string_view pod_description,
                                                const NodeEtcPaths& node) {
  PodNameResolution out;
  auto names = MakePodHostnames(pod, dns.cluster_domain);
  if (!names) return std::unexpected(std::move(names.error()));
  out.names = std::move(*names);

  std::string host_resolv;
  if (!dns.resolv_conf.empty()) {
    auto text = ReadSmallFile(dns.resolv_conf, kMaxNodeFileBytes);
    if (!text) return std::unexpected(std::move(text.error()));
    host_resolv = std::move(*text);
  }
  auto pod_dns = MakePodDns(dns, pod, host_resolv, pod_description);
  if (!pod_dns) return std::unexpected(std::move(pod_dns.error()));
  out.events = std::move(pod_dns->events);
  if (pod_dns->config.Empty()) {
    // containerd copies the node's file when the kubelet passes no DNS settings.
    auto text = ReadSmallFile(node.resolv_conf, kMaxNodeFileBytes);
    if (!text) return std::unexpected(std::move(text.error()));
    out.files.resolv_conf = std::move(*text);
  } else {
    out.files.resolv_conf = ResolvConfContent(pod_dns->config);
  }

  if (pod.spec.host_network) {
    auto text = ReadSmallFile(node.hosts, kMaxNodeFileBytes);
    if (!text) return std::unexpected(std::move(text.error()));
    out.files.hosts = NodeHostsFile(*text, pod.spec.host_aliases);
    out.files.hostname = cri::HostName() + "\n";
  } else {
    out.files.hosts = ManagedHostsFile(pod_ips, out.names, pod.spec.host_aliases);
    out.files.hostname = out.names.kernel + "\n";
  }
  return out;
}

Result<void> WritePodEtcFiles(const fs::path& pod_dir, const PodEtcFiles& files) {
  if (auto w = ReplaceFile(pod_dir / kHostsFile, files.hosts); !w) return w;
  if (auto w = ReplaceFile(pod_dir / kHostnameFile, files.hostname); !w) return w;
  return ReplaceFile(pod_dir / kResolvConfFile, files.resolv_conf);
}

std::vector<cri::SpecMount> PodEtcFileMounts(const fs::path& pod_dir,
                                             const api::Container& container,
                                             const std::vector<cri::SpecMount>& container_mounts) {
  const auto& sc = container.security_context;
  const bool read_only = sc && sc->read_only_root_filesystem.value_or(false);
  std::vector<cri::SpecMount> out;
  auto add = [&](std::string destination, std::string_view file, bool writable) {
    const bool mounted = std::any_of(
        container_mounts.begin(), container_mounts.end(),
        [&](const cri::SpecMount& m) { return fs::path(m.destination) == fs::path(destination); });
    if (mounted) return;
    out.push_back({std::move(destination), "bind", (pod_dir / file).string(),
                   {"rbind", "rprivate", writable ? "rw" : "ro"}});
  };
  add("/etc/hosts", kHostsFile, true);
  add("/etc/hostname", kHostnameFile, !read_only);
  add("/etc/resolv.conf", kResolvConfFile, !read_only);
  return out;
}

}  // namespace podlimits::kubelet
