// The HTTPS listener's figures in the Prometheus text (http/listener_metrics.h): every name, help
// text and value written out for one set of stats.
#include "http/listener_metrics.h"

#include <gtest/gtest.h>

namespace podlimits::http {
namespace {

TEST(ListenerMetrics, EveryFigureUnderItsName) {
  HttpsServer::Stats stats;
  stats.open = 7;
  stats.waiting = 3;
  stats.worker_threads = 4;
  stats.displaced_total = 11;
  stats.refused_total = 2;
  stats.timed_out_total = 5;
  stats.too_many_total = 13;
  stats.header_too_large_total = 17;
  stats.malformed_total = 19;
  stats.too_large_total = 23;
  stats.buffered_body_bytes = 3145728;
  PrometheusText out;
  WriteListenerMetrics(stats, out);
  EXPECT_EQ(
      out.text(),
      "# HELP podlimits_http_connections_open Connections the HTTPS listener holds: handshaking, "
      "waiting for a request, reading one or being answered.\n"
      "# TYPE podlimits_http_connections_open gauge\n"
      "podlimits_http_connections_open 7\n"
      "# HELP podlimits_http_connections_waiting Of the open connections, those waiting for a "
      "request (kept alive between requests); the first to be displaced by a new connection "
      "over a cap.\n"
      "# TYPE podlimits_http_connections_waiting gauge\n"
      "podlimits_http_connections_waiting 3\n"
      "# HELP podlimits_http_worker_threads Threads the listener runs handlers on (a streamed "
      "response or a WebSocket keeps one).\n"
      "# TYPE podlimits_http_worker_threads gauge\n"
      "podlimits_http_worker_threads 4\n"
      "# HELP podlimits_http_connections_displaced_total Waiting connections closed to make "
      "room for a new one over the per-address or total connection cap.\n"
      "# TYPE podlimits_http_connections_displaced_total counter\n"
      "podlimits_http_connections_displaced_total 11\n"
      "# HELP podlimits_http_connections_refused_total New connections refused because every "
      "connection under a cap was busy.\n"
      "# TYPE podlimits_http_connections_refused_total counter\n"
      "podlimits_http_connections_refused_total 2\n"
      "# HELP podlimits_http_connections_timed_out_total Connections closed at a deadline: TLS "
      "handshake, request header, idle keep-alive, request body or response write.\n"
      "# TYPE podlimits_http_connections_timed_out_total counter\n"
      "podlimits_http_connections_timed_out_total 5\n"
      "# HELP podlimits_http_refusals_total Requests the listener answered itself, by status: "
      "400 malformed, 413 body over 3 MiB, 429 request bodies in flight over their budget, 431 "
      "header too large.\n"
      "# TYPE podlimits_http_refusals_total counter\n"
      "podlimits_http_refusals_total{code=\"400\"} 19\n"
      "podlimits_http_refusals_total{code=\"413\"} 23\n"
      "podlimits_http_refusals_total{code=\"429\"} 13\n"
      "podlimits_http_refusals_total{code=\"431\"} 17\n"
      "# HELP podlimits_http_request_body_bytes_in_flight Bytes of request bodies being read or "
      "handled, each at its announced length (a chunked one at the 3 MiB it may reach); a body "
      "that would pass the budget is a 429.\n"
      "# TYPE podlimits_http_request_body_bytes_in_flight gauge\n"
      "podlimits_http_request_body_bytes_in_flight 3145728\n");
}

}  // namespace
}  // namespace podlimits::http
