#include "apiserver/negotiated_response.h"

#include "api/protobuf_encode.h"
#include "api/schema.h"
#include "codec/json_codec.h"
#include "codec/yaml_codec.h"
#include "listwatch/partial_object_metadata.h"

namespace podlimits::apiserver {
namespace {

// `object` in `type`, the response's status kept; a protobuf encoder failure is the 500 Status
// with the encoder's error (SerializeObject's fallback: ErrorToAPIStatus of a plain error, no
// reason), itself in protobuf.
http::HttpResponse Encode(int status, const codec::Node& object, MediaType type) {
  switch (type) {
    case MediaType::kJson:
      return {status, std::string(kJsonMediaType), codec::EncodeJson(object, 0)};
    case MediaType::kYaml:
      return {status, std::string(kYamlMediaType), codec::EncodeYaml(object)};
    case MediaType::kProtobuf: break;
  }
  auto encoded = api::EncodeProtobufObject(object, api::Schema::Objects());
  if (encoded) return {status, std::string(kProtobufMediaType), std::move(*encoded)};
  ApiError failed;
  failed.code = 500;
  failed.message = encoded.error().Message();
  auto status_encoded = api::EncodeProtobufObject(failed.Status(), api::Schema::Objects());
  if (!status_encoded) return {500, "text/plain", ": " + failed.message};
  return {500, std::string(kProtobufMediaType), std::move(*status_encoded)};
}

http::HttpResponse EncodeError(const http::HttpResponse& response,
                               const std::optional<OutputMediaType>& error_media) {
  if (!error_media || error_media->type == MediaType::kJson) return response;
  auto parsed = codec::ParseJsonStream(response.body);
  if (!parsed || parsed->size() != 1 || !(*parsed)[0].IsObject()) return response;
  http::HttpResponse out = Encode(response.status, (*parsed)[0], error_media->type);
  out.headers = response.headers;
  return out;
}

}  // namespace

http::HttpResponse EncodeNegotiated(http::HttpResponse response, const OutputMediaType& media,
                                    const std::optional<OutputMediaType>& error_media) {
  if (response.stream || response.websocket || response.content_type != kJsonMediaType) {
    return response;
  }
  if (response.status >= 400) return EncodeError(response, error_media);
  const MetadataConversion conversion = MetadataConversionOf(media.convert_kind);
  if (media.type == MediaType::kJson && conversion == MetadataConversion::kNone) return response;
  auto parsed = codec::ParseJsonStream(response.body);
  if (!parsed || parsed->size() != 1 || !(*parsed)[0].IsObject()) return response;
  auto converted = ConvertToMetadata((*parsed)[0], conversion, media.convert_version);
  if (!converted) {
    http::HttpResponse refused = converted.error().Response();
    refused.headers = std::move(response.headers);
    return EncodeError(refused, error_media);
  }
  http::HttpResponse out = Encode(response.status, *converted, media.type);
  out.headers = std::move(response.headers);
  return out;
}

}  // namespace podlimits::apiserver
