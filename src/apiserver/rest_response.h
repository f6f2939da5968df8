// Small pieces every REST handler answers with.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/schema.h"
#include "apiserver/output_media_type.h"
#include "listwatch/api_errors.h"
#include "codec/json_codec.h"
#include "field/field.h"
#include "http/https_server.h"
#include "storage/object_store.h"

namespace podlimits::apiserver {

inline http::HttpResponse JsonResponse(int status, std::string body) {
  return {status, "application/json", std::move(body)};
}

// Whether the Accept header negotiates a meta.k8s.io Table (kubectl get's server-side printing).
inline bool WantsTable(const http::HttpRequest& request) {
  auto it = request.headers.find("accept");
  if (it == request.headers.end()) return false;
  auto media = NegotiateOutputMediaType(it->second, EndpointMediaTypes{});
  return media && media->convert_kind == "Table";
}

// "Warning: 299 - "text"" headers, as the apiserver sends warnings.
inline void AddWarnings(http::HttpResponse& response, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) {
    response.headers.emplace_back("Warning", "299 - " + field::GoQuote(w));
  }
}

// The request's fieldValidation (Strict, Warn, Ignore); the server's default is Warn.
inline api::FieldValidation FieldValidationOf(const http::HttpRequest& request) {
  auto it = request.query.find("fieldValidation");
  if (it == request.query.end()) return api::FieldValidation::kWarn;
  if (it->second == "Strict") return api::FieldValidation::kStrict;
  if (it->second == "Ignore") return api::FieldValidation::kIgnore;
  return api::FieldValidation::kWarn;
}

// The one JSON object a PUT or an Eviction body holds, or nullopt (the caller answers with the
// apiserver's "unknown format" BadRequest).
inline std::optional<codec::Node> ParseOneJsonObject(std::string_view body) {
  auto parsed = codec::ParseJsonStream(body);
  if (!parsed || parsed->size() != 1 || !(*parsed)[0].IsObject()) return std::nullopt;
  return std::move((*parsed)[0]);
}

inline http::HttpResponse InternalResponse(const Error& e) {
  return InternalError(e.Message()).Response();
}

}  // namespace podlimits::apiserver
