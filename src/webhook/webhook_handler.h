// The webhook's HTTP surface: POST /validate and /mutate take an AdmissionReview
// (application/json) and answer it (admission_review.h); GET /healthz and /readyz answer "ok";
// GET /metrics the Prometheus text (review_metrics.h). Anything else is a 404; another method
// on a review path a 405, another content type a 415.
#pragma once

#include "apiserver/https_server.h"
#include "webhook/review_metrics.h"
#include "webhook/webhook_config.h"

namespace podlimits::webhook {

class WebhookHandler {
 public:
  explicit WebhookHandler(const WebhookSettings& settings) : settings_(settings) {}
  apiserver::HttpResponse operator()(const apiserver::HttpRequest& request);
  const ReviewMetrics& metrics() const { return metrics_; }

 private:
  const WebhookSettings& settings_;
  ReviewMetrics metrics_;
};

}  // namespace podlimits::webhook
