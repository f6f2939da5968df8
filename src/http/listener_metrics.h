// The HTTPS listener's own figures (HttpsServer::stats()) for a /metrics page: what it holds
// now and what it refused or closed by itself, before any handler saw a request. Both serve's
// /metrics and the webhook's carry them, under podlimits_http_*.
#pragma once

#include <atomic>
#include <string>

#include "base/prometheus_text.h"
#include "http/https_server.h"

namespace podlimits::http {

void WriteListenerMetrics(const HttpsServer::Stats& stats, PrometheusText& out);

// The server whose figures a handler reports. The handler is made before the server it is
// given to, so it learns the server once Start has returned; a request answered before that
// (one racing the start) reports no figures.
class ListenerStatsSource {
 public:
  // `server` outlives every request it hands to the handler (Stop waits for them).
  void Attach(const HttpsServer& server) { server_.store(&server, std::memory_order_release); }
  // WriteListenerMetrics of the attached server's stats; "" before Attach.
  std::string MetricsText() const;

 private:
  std::atomic<const HttpsServer*> server_{nullptr};
};

}  // namespace podlimits::http
