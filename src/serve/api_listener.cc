#include "serve/api_listener.h"

#include "listwatch/api_errors.h"
#include "apiserver/api_handler.h"
#include "http/https_server.h"
#include "http/listener_metrics.h"

namespace podlimits::serve {

Result<ApiListener> ApiListener::Start(const ApiListenerOptions& options,
                                       const NodePki& pki,
                                       apiserver::RestHandler& rest, nodeagent::NodeAgent& agent) {
  http::HttpsServerOptions server_options;
  server_options.address = options.host;
  server_options.port = options.port;
  server_options.cert_file = pki.serving_cert;
  server_options.key_file = pki.serving_key;
  server_options.client_ca_file = pki.ca_cert;
  server_options.bearer_token = options.bearer_token;
  server_options.refusal = apiserver::ListenerRefusal;
  auto listener_stats = std::make_shared<http::ListenerStatsSource>();
  auto server = http::HttpsServer::Start(
      server_options, [&rest, &agent, listener_stats](const http::HttpRequest& r) {
        // The kubelet's /metrics, here on the API port (authenticated as every request is),
        // with the listener's own figures after the node's.
        if (r.method == "GET" && r.path == "/metrics") {
          return http::HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8",
                                    agent.MetricsText() + listener_stats->MetricsText(), {}};
        }
        return apiserver::HandleApiRequest(r, &rest);
      });
  if (!server) return std::unexpected(server.error());
  listener_stats->Attach(**server);
  return ApiListener(std::move(*server));
}

ApiListener::ApiListener(std::unique_ptr<http::HttpsServer> server) : server_(std::move(server)) {}
ApiListener::ApiListener(ApiListener&&) noexcept = default;
ApiListener& ApiListener::operator=(ApiListener&&) noexcept = default;
ApiListener::~ApiListener() = default;

std::uint16_t ApiListener::port() const { return server_->port(); }

void ApiListener::Stop() {
  if (server_) server_->Stop();
}

}  // namespace podlimits::serve
