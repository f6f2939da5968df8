#include "serve/node_pki.h"

#include <arpa/inet.h>

namespace podlimits::serve {

std::string DialAddress(const std::string& host) {
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return v4.s_addr == 0 ? "127.0.0.1" : host;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_UNSPECIFIED(&v6)) return "::1";
  return host;
}

std::string UrlHost(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

Result<NodePki> EnsureServePki(const std::filesystem::path& data_dir,
                                          const std::string& host, std::uint16_t port,
                                          const Notice& notice) {
  PkiOptions options;
  options.data_dir = data_dir;
  const std::string dial = DialAddress(host);
  options.server_url = "https://" + UrlHost(dial) + ":" + std::to_string(port);
  options.ip_addresses.push_back(dial);
  auto pki = EnsureNodePki(options);
  if (!pki) return pki;
  if (!pki->created && pki->serving_reissued) {
    notice("serving certificate issued again to cover " + dial);
  }
  if (!pki->created && pki->kubeconfig_written) {
    notice(pki->kubeconfig.string() + " now points at " + options.server_url);
  }
  return pki;
}

}  // namespace podlimits::serve
