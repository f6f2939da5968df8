// The webhook's HTTP surface: POST /validate and /mutate take an AdmissionReview
// (application/json) and answer it (admission_review.h) with the store's current policy;
// GET /healthz answers "ok", /readyz "ok" once the policy is known (503 while the cluster's
// Namespaces and LimitRanges are first listed);
// GET /metrics the Prometheus text (review_metrics.h, then the listener's figures once
// AttachListener has named the server). Anything else is a 404; another method
// on a review path a 405, another content type a 415.
#pragma once

#include "http/https_server.h"
#include "http/listener_metrics.h"
#include "webhook/review_metrics.h"
#include "webhook/policy_store.h"

namespace podlimits::webhook {

class WebhookHandler {
 public:
  explicit WebhookHandler(const PolicyStore& policies) : policies_(policies) {}
  http::HttpResponse operator()(const http::HttpRequest& request);
  const ReviewMetrics& metrics() const { return metrics_; }
  // The server this handler answers for, once started: /metrics reports its stats too.
  void AttachListener(const http::HttpsServer& server) { listener_stats_.Attach(server); }

 private:
  const PolicyStore& policies_;
  ReviewMetrics metrics_;
  http::ListenerStatsSource listener_stats_;
};

}  // namespace podlimits::webhook
