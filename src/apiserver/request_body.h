// The body of a write (POST, PUT, DELETE's DeleteOptions) in every content type the apiserver's
// negotiated serializers decode, so each verb reads the same three:
//
//   application/json                      as it is (also when no Content-Type is given: the
//                                         apiserver falls back to its first serializer, JSON)
//   application/yaml                      as it is, or as JSON where the handler reads JSON
//                                         (sigs.k8s.io/yaml's conversion, codec/yaml_codec.h)
//   application/vnd.kubernetes.protobuf   the `k8s\0` envelope decoded into the JSON the same
//                                         object would have (api/protobuf_object.h); client-go's
//                                         typed clients send create, update and delete bodies so
//
// Anything else is 415 with the accepted types; a body that is not what its type says is 400
// with the decoder's words.
#pragma once

#include <expected>
#include <string>

#include "listwatch/api_errors.h"
#include "http/https_server.h"

namespace podlimits::apiserver {

struct RequestBody {
  std::string text;   // JSON, or YAML when `yaml`
  bool yaml = false;
};

// For a decoder that reads JSON and YAML alike (api::DecodeManifests): YAML stays YAML, so its
// errors name its lines.
std::expected<RequestBody, ApiError> ReadRequestBody(const http::HttpRequest& request);

// For a handler that reads JSON only: YAML converted.
std::expected<std::string, ApiError> ReadRequestBodyAsJson(const http::HttpRequest& request);

}  // namespace podlimits::apiserver
