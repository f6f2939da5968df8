#include "webhook/webhook_handler.h"

#include <chrono>

namespace podlimits::webhook {

using http::HttpRequest;
using http::HttpResponse;

namespace {

http::HttpResponse Text(int status, std::string body) {
  return {status, "text/plain; charset=utf-8", std::move(body)};
}

}  // namespace

http::HttpResponse WebhookHandler::operator()(const http::HttpRequest& request) {
  const bool validate = request.path == "/validate";
  if (validate || request.path == "/mutate") {
    if (request.method != "POST") return Text(405, "method not allowed: POST an AdmissionReview\n");
    auto type = request.headers.find("content-type");
    if (type == request.headers.end() || !type->second.starts_with("application/json")) {
      return Text(415, "unsupported media type: an AdmissionReview is application/json\n");
    }
    const auto start = std::chrono::steady_clock::now();
    const std::shared_ptr<const ReviewPolicy> policy = policies_.Current();
    ReviewAnswer answer = AnswerReview(request.body,
                                       validate ? ReviewMode::kValidate : ReviewMode::kMutate,
                                       *policy);
    const ReviewResult result = answer.http_status != 200 ? ReviewResult::kMalformed
                                : answer.allowed          ? ReviewResult::kAllowed
                                                          : ReviewResult::kDenied;
    metrics_.Record(validate ? ReviewPath::kValidate : ReviewPath::kMutate, result,
                    std::chrono::steady_clock::now() - start);
    return {answer.http_status, "application/json", std::move(answer.body)};
  }
  if (request.method == "GET" && request.path == "/healthz") return Text(200, "ok");
  if (request.method == "GET" && request.path == "/readyz") {
    if (!policies_.Ready()) return Text(503, "not ready: the cluster's namespaces and limitranges are not listed yet\n");
    return Text(200, "ok");
  }
  if (request.method == "GET" && request.path == "/metrics") {
    return Text(200, metrics_.Exposition() + listener_stats_.MetricsText());
  }
  return Text(404, "not found\n");
}

}  // namespace podlimits::webhook
