#include "apiserver/ephemeral_containers.h"

#include "api/decode.h"
#include "api/defaults.h"
#include "api/schema.h"
#include "apiserver/rest_response.h"
#include "listwatch/api_errors.h"
#include "validation/pod.h"

namespace podlimits::apiserver {

using codec::Node;

std::variant<http::HttpResponse, EphemeralContainersUpdate> UpdateEphemeralContainers(
    const Node& candidate, const Node& stored, const api::Namespace& ns,
    const admission::psa::PodSecurity& security, const validation::FeatureGates& gates,
    const http::HttpRequest& request) {
  EphemeralContainersUpdate out;
  out.next = stored;
  Node& spec = out.next.Ensure("spec");
  spec.Erase("ephemeralContainers");
  if (const Node* list = candidate.FindPath({"spec", "ephemeralContainers"});
      list && !list->IsNull()) {
    spec.Set("ephemeralContainers", *list);
  }
  api::SetDefaultsPod(out.next);
  // In the stored form (Go's empty structs such as `resources: {}`), so that an existing
  // container compares equal to itself however the request wrote it.
  api::CanonicalizeOrder(out.next, "Pod");
  // Strict decoding of what the request brought (the rest is the stored pod's).
  auto decoded = api::DecodeObject(api::Schema::Objects(), "Pod", out.next, "request", 0,
                                   FieldValidationOf(request));
  if (auto* err = std::get_if<api::DecodeError>(&decoded)) return BadRequest(err->message).Response();
  out.warnings = std::move(std::get<api::DecodedObject>(decoded).warnings);

  const api::Pod pod = api::ReadPod(out.next);
  const api::Pod old = api::ReadPod(stored);
  validation::ValidationResult v = validation::ValidatePodEphemeralContainersUpdate(
      pod, old, out.next.FindPath({"spec", "ephemeralContainers"}),
      stored.FindPath({"spec", "ephemeralContainers"}), gates);
  for (auto& w : v.warnings) out.warnings.push_back(std::move(w));
  if (!v.errors.empty()) {
    http::HttpResponse r = Invalid("Pod", pod.metadata.name, v.errors).Response();
    AddWarnings(r, out.warnings);
    return r;
  }
  admission::psa::PodRequest psa_request;
  psa_request.operation = admission::psa::Operation::kUpdate;
  psa_request.subresource = "ephemeralcontainers";
  psa_request.old_pod = &old;
  admission::psa::PodSecurityDecision decision =
      security.Evaluate(ns, pod, out.next, request.user, psa_request);
  for (auto& w : decision.warnings) out.warnings.push_back(std::move(w));
  if (decision.forbidden_message) {
    ApiError e = Forbidden("pods", pod.metadata.name, "");
    e.message = *decision.forbidden_message;
    http::HttpResponse r = e.Response();
    AddWarnings(r, out.warnings);
    return r;
  }
  return out;
}

}  // namespace podlimits::apiserver
