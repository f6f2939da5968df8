#include "kubelet/network/pod_hostname.h"

#include <fmt/format.h>

namespace podlimits::kubelet {
namespace {

constexpr std::size_t kHostnameMaxLength = 63;  // a DNS label
constexpr std::size_t kFqdnMaxLength = 64;      // the kernel's nodename field

// truncatePodHostnameIfNeeded: cut to 63 characters, then drop trailing '-' and '.'.
std::string Truncate(std::string name) {
  if (name.size() <= kHostnameMaxLength) return name;
  name.resize(kHostnameMaxLength);
  while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  return name;
}

std::string AliasEntries(const std::vector<api::HostAlias>& aliases) {
  if (aliases.empty()) return "";
  std::string out = "\n# Entries added by HostAliases.\n";
  for (const auto& alias : aliases) {
    out += alias.ip;
    out += '\t';
    for (std::size_t i = 0; i < alias.hostnames.size(); ++i) {
      if (i > 0) out += '\t';
      out += alias.hostnames[i];
    }
    out += '\n';
  }
  return out;
}

}  // namespace

Result<PodHostnames> MakePodHostnames(const api::Pod& pod, std::string_view cluster_domain) {
  PodHostnames names;
  // API validation made spec.hostname and spec.subdomain DNS labels already.
  names.hostname = Truncate(pod.spec.hostname.empty() ? pod.metadata.name : pod.spec.hostname);
  if (!pod.spec.subdomain.empty()) {
    names.domain =
        fmt::format("{}.{}.svc.{}", pod.spec.subdomain, pod.metadata.namespace_, cluster_domain);
  }
  names.kernel = names.hostname;
  if (!names.domain.empty() && pod.spec.set_hostname_as_fqdn.value_or(false)) {
    std::string fqdn = names.hostname + "." + names.domain;
    if (fqdn.size() > kFqdnMaxLength) {
      return Failure(fmt::format(
          "failed to construct FQDN from pod hostname and cluster domain, FQDN {} is too long "
          "({} characters is the max, {} characters requested)",
          fqdn, kFqdnMaxLength, fqdn.size()));
    }
    names.kernel = std::move(fqdn);
  }
  return names;
}

std::string ManagedHostsFile(const std::vector<std::string>& pod_ips, const PodHostnames& names,
                             const std::vector<api::HostAlias>& aliases) {
  std::string out =
      "# Kubernetes-managed hosts file.\n"
      "127.0.0.1\tlocalhost\n"
      "::1\tlocalhost ip6-localhost ip6-loopback\n"
      "fe00::0\tip6-localnet\n"
      "fe00::0\tip6-mcastprefix\n"
      "fe00::1\tip6-allnodes\n"
      "fe00::2\tip6-allrouters\n";
  for (const auto& ip : pod_ips) {
    if (names.domain.empty()) {
      out += fmt::format("{}\t{}\n", ip, names.hostname);
    } else {
      out += fmt::format("{}\t{}.{}\t{}\n", ip, names.hostname, names.domain, names.hostname);
    }
  }
  return out + AliasEntries(aliases);
}

std::string NodeHostsFile(std::string_view node_hosts, const std::vector<api::HostAlias>& aliases) {
  std::string out = "# Kubernetes-managed hosts file (host network).\n";
  out += node_hosts;
  return out + AliasEntries(aliases);
}

}  // namespace podlimits::kubelet
