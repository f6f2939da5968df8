#include "apiserver/stored_object.h"

#include "api/defaults.h"
#include "api/json_codec.h"

namespace podlimits::apiserver {

std::optional<api::Node> ParseStoredObject(std::string_view data) {
  auto nodes = api::ParseJsonStream(data);
  if (!nodes || nodes->size() != 1 || !(*nodes)[0].IsObject()) return std::nullopt;
  return std::move((*nodes)[0]);
}

std::string RenderStoredObject(api::Node& object, std::string_view kind, std::int64_t revision) {
  object.Ensure("metadata").Set("resourceVersion", api::Node::String(std::to_string(revision)));
  api::CanonicalizeOrder(object, kind);
  return api::EncodeJson(object, 0);
}

}  // namespace podlimits::apiserver
