// The node's certificates, made with OpenSSL on the first start of `podlimits serve` and kept
// under the data directory, the way kubeadm lays out a control plane's:
//
//   pki/ca.crt, pki/ca.key              a self-signed CA (ECDSA P-256, 10 years)
//   pki/apiserver.crt, apiserver.key    the serving certificate: serverAuth, DNS localhost and
//                                       the host name, IP 127.0.0.1 and ::1 (1 year)
//   pki/admin.crt, admin.key            the admin client certificate: clientAuth,
//                                       CN=kubernetes-admin, O=system:masters (1 year)
//   kubeconfig                          cluster, user and context for kubectl, the three PEMs
//                                       embedded; mode 0600
//
// Keys are written 0600 in a 0700 directory. Files that exist are reused, so a restart keeps
// the kubeconfig users already have; a missing or unreadable piece is an error naming the file,
// never silently replaced.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"

namespace podlimits::apiserver {

struct PkiOptions {
  std::filesystem::path data_dir;
  std::string server_url = "https://127.0.0.1:6443";  // what the kubeconfig points at
  std::vector<std::string> dns_names;  // extra serving names beyond localhost and the host name
  std::vector<std::string> ip_addresses;  // extra serving IPs beyond 127.0.0.1 and ::1
  std::string cluster_name = "podlimits";
};

struct NodePki {
  std::filesystem::path ca_cert, ca_key;
  std::filesystem::path serving_cert, serving_key;
  std::filesystem::path admin_cert, admin_key;
  std::filesystem::path kubeconfig;
  bool created = false;  // made by this call (first start)
};

// Makes what is missing, or checks and reuses what is there.
Result<NodePki> EnsureNodePki(const PkiOptions& options);

// The kubeconfig text for `server_url` with the PEMs embedded (base64), as kubectl reads it.
std::string KubeconfigText(const std::string& cluster_name, const std::string& server_url,
                           const std::string& ca_pem, const std::string& client_cert_pem,
                           const std::string& client_key_pem);

}  // namespace podlimits::apiserver
