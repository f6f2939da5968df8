// The node's one HTTPS listener (http/https_server.h): the Kubernetes API for kubectl, and the
// kubelet's /metrics on the same port. Clients authenticate with the admin certificate the
// node's CA issued, or with the bearer token of `--token-file`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "apiserver/rest_handler.h"
#include "base/error.h"
#include "nodeagent/node_agent.h"
#include "serve/pki.h"

namespace podlimits::http {
class HttpsServer;
}

namespace podlimits::serve {

struct ApiListenerOptions {
  std::string host;  // an IP address, without brackets
  std::uint16_t port = 6443;
  std::string bearer_token;  // "" for none
};

class ApiListener {
 public:
  static Result<ApiListener> Start(const ApiListenerOptions& options, const NodePki& pki,
                                   apiserver::RestHandler& rest, nodeagent::NodeAgent& agent);
  ApiListener(ApiListener&&) noexcept;
  ApiListener& operator=(ApiListener&&) noexcept;
  ~ApiListener();

  std::uint16_t port() const;
  // Closes the listener and every connection, and waits for them.
  void Stop();

 private:
  explicit ApiListener(std::unique_ptr<http::HttpsServer> server);
  std::unique_ptr<http::HttpsServer> server_;
};

}  // namespace podlimits::serve
