#include "http/listener_metrics.h"

namespace podlimits::http {

void WriteListenerMetrics(const HttpsServer::Stats& stats, PrometheusText& out) {
  out.Family("podlimits_http_connections_open",
             "Connections the HTTPS listener holds: handshaking, waiting for a request, reading "
             "one or being answered.",
             MetricType::kGauge);
  out.Sample(stats.open);
  out.Family("podlimits_http_connections_waiting",
             "Of the open connections, those waiting for a request (kept alive between requests); "
             "the first to be displaced by a new connection over a cap.",
             MetricType::kGauge);
  out.Sample(stats.waiting);
  out.Family("podlimits_http_worker_threads",
             "Threads the listener runs handlers on (a streamed response or a WebSocket keeps "
             "one).",
             MetricType::kGauge);
  out.Sample(stats.worker_threads);
  out.Family("podlimits_http_connections_displaced_total",
             "Waiting connections closed to make room for a new one over the per-address or "
             "total connection cap.",
             MetricType::kCounter);
  out.Sample(stats.displaced_total);
  out.Family("podlimits_http_connections_refused_total",
             "New connections refused because every connection under a cap was busy.",
             MetricType::kCounter);
  out.Sample(stats.refused_total);
  out.Family("podlimits_http_connections_timed_out_total",
             "Connections closed at a deadline: TLS handshake, request header, idle keep-alive, "
             "request body or response write.",
             MetricType::kCounter);
  out.Sample(stats.timed_out_total);
  out.Family("podlimits_http_refusals_total",
             "Requests the listener answered itself, by status: 400 malformed, 413 body over "
             "3 MiB, 429 request bodies in flight over their budget, 431 header too large.",
             MetricType::kCounter);
  out.Sample({{"code", "400"}}, stats.malformed_total);
  out.Sample({{"code", "413"}}, stats.too_large_total);
  out.Sample({{"code", "429"}}, stats.too_many_total);
  out.Sample({{"code", "431"}}, stats.header_too_large_total);
  out.Family("podlimits_http_request_body_bytes_in_flight",
             "Bytes of request bodies being read or handled, each at its announced length (a "
             "chunked one at the 3 MiB it may reach); a body that would pass the budget is a 429.",
             MetricType::kGauge);
  out.Sample(stats.buffered_body_bytes);
}

std::string ListenerStatsSource::MetricsText() const {
  const HttpsServer* server = server_.load(std::memory_order_acquire);
  if (server == nullptr) return "";
  PrometheusText out;
  WriteListenerMetrics(server->stats(), out);
  return std::move(out).text();
}

}  // namespace podlimits::http
