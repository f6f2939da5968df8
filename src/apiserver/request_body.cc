#include "apiserver/request_body.h"

#include "api/protobuf_object.h"
#include "api/schema.h"
#include "codec/json_codec.h"
#include "codec/yaml_codec.h"

namespace podlimits::apiserver {

std::expected<RequestBody, ApiError> ReadRequestBody(const http::HttpRequest& request) {
  auto type = request.headers.find("content-type");
  const std::string content_type = type == request.headers.end() ? "" : type->second;
  if (content_type.starts_with(api::kProtobufContentType)) {
    auto object = api::DecodeProtobufObject(request.body, api::Schema::Objects());
    if (!object) return std::unexpected(BadRequest(object.error().Message()));
    return RequestBody{codec::EncodeJson(*object, 0), false};
  }
  if (content_type.starts_with("application/yaml")) return RequestBody{request.body, true};
  if (content_type.empty() || content_type.starts_with("application/json")) {
    return RequestBody{request.body, false};
  }
  return std::unexpected(UnsupportedMediaType(
      {"application/json", "application/yaml", std::string(api::kProtobufContentType)}));
}

std::expected<std::string, ApiError> ReadRequestBodyAsJson(const http::HttpRequest& request) {
  auto body = ReadRequestBody(request);
  if (!body) return std::unexpected(std::move(body.error()));
  if (!body->yaml) return std::move(body->text);
  auto documents = codec::ParseYamlStream(body->text);
  if (!documents) return std::unexpected(BadRequest(codec::DescribeYamlError(documents.error())));
  // An empty YAML body is an empty body (DELETE without options); of several documents the
  // first is read, as go-yaml's Unmarshal in sigs.k8s.io/yaml reads it.
  if (documents->empty()) return std::string();
  return codec::EncodeJson((*documents)[0].node, 0);
}

}  // namespace podlimits::apiserver
