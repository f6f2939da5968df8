// The node's certificates and kubeconfig for a listener on HOST:PORT (apiserver/pki.h): made on
// the first start, and on every start the kubeconfig follows the listen address and the serving
// certificate names the address the kubeconfig points at.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "base/error.h"
#include "serve/notice.h"
#include "serve/pki.h"

namespace podlimits::serve {

// The address kubectl dials for a listener on `host`: the host itself, or for the wildcard
// address (0.0.0.0, ::) loopback of the same family, which it answers on too.
std::string DialAddress(const std::string& host);

// `host` as a URL names it: an IPv6 address in brackets.
std::string UrlHost(const std::string& host);

Result<NodePki> EnsureServePki(const std::filesystem::path& data_dir,
                                          const std::string& host, std::uint16_t port,
                                          const Notice& notice);

}  // namespace podlimits::serve
