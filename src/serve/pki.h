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
// Keys are written 0600 in a 0700 directory. Certificates and keys that exist are reused, so a
// restart keeps the credentials users already have; a missing or unreadable one is an error
// naming the file, never silently replaced. What follows the address serve listens on follows
// it on every start, as k3s rewrites its kubeconfig:
//
//   - the serving certificate is issued again, for the same key and by the same CA, when it
//     does not cover an address or name asked for (a --listen address other than 127.0.0.1 and
//     ::1); the CA and the admin certificate stay;
//   - the kubeconfig is derived: written again (atomically, 0600) whenever it is missing or is
//     not what the certificates and `server_url` give, so it names the address and port serve
//     listens on now.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"

namespace podlimits::serve {

struct PkiOptions {
  std::filesystem::path data_dir;
  std::string server_url = "https://127.0.0.1:6443";  // what the kubeconfig points at
  std::vector<std::string> dns_names;  // extra serving names beyond localhost and the host name
  std::vector<std::string> ip_addresses;  // extra serving IPs beyond 127.0.0.1 and ::1
                                          // (those two may be named too: they are not repeated)
  std::string cluster_name = "podlimits";
};

struct NodePki {
  std::filesystem::path ca_cert, ca_key;
  std::filesystem::path serving_cert, serving_key;
  std::filesystem::path admin_cert, admin_key;
  std::filesystem::path kubeconfig;
  bool created = false;            // made by this call (first start)
  bool serving_reissued = false;   // the serving certificate did not cover an address asked for
  bool kubeconfig_written = false;  // written by this call (first start, or it had changed)
};

// Makes what is missing, or checks and reuses what is there.
Result<NodePki> EnsureNodePki(const PkiOptions& options);

// The kubeconfig text for `server_url` with the PEMs embedded (base64), as kubectl reads it.
std::string KubeconfigText(const std::string& cluster_name, const std::string& server_url,
                           const std::string& ca_pem, const std::string& client_cert_pem,
                           const std::string& client_key_pem);

}  // namespace podlimits::serve
