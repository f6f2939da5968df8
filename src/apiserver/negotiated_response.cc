#include "apiserver/negotiated_response.h"

#include "api/protobuf_encode.h"
#include "api/schema.h"
#include "codec/json_codec.h"
#include "codec/yaml_codec.h"

namespace podlimits::apiserver {

http::HttpResponse EncodeNegotiated(http::HttpResponse response, const OutputMediaType& media) {
  if (media.type == MediaType::kJson || response.stream || response.websocket ||
      response.content_type != kJsonMediaType) {
    return response;
  }
  // Not converted here (the handlers answer the object itself): left in JSON rather than sent
  // as a kind the client did not ask for in a form it cannot take for the one it did.
  if (!media.convert_kind.empty() && media.convert_kind != "Table") return response;
  auto parsed = codec::ParseJsonStream(response.body);
  if (!parsed || parsed->size() != 1 || !(*parsed)[0].IsObject()) return response;
  const codec::Node& object = (*parsed)[0];
  if (media.type == MediaType::kYaml) {
    response.body = codec::EncodeYaml(object);
    response.content_type = std::string(kYamlMediaType);
    return response;
  }
  auto encoded = api::EncodeProtobufObject(object, api::Schema::Objects());
  if (!encoded) return response;
  response.body = std::move(*encoded);
  response.content_type = std::string(kProtobufMediaType);
  return response;
}

}  // namespace podlimits::apiserver
