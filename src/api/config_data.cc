#include "api/config_data.h"

#include "base/base64.h"

namespace podlimits::api {
namespace {

std::map<std::string, std::string> StringMap(const codec::Node* map, bool base64) {
  std::map<std::string, std::string> out;
  if (map == nullptr || !map->IsObject()) return out;
  for (const auto& m : map->members) {
    if (!base64) {
      out[m.key] = m.value.scalar;
    } else if (auto bytes = Base64Decode(m.value.scalar)) {
      out[m.key] = std::move(*bytes);
    }
  }
  return out;
}

std::optional<bool> OptBool(const codec::Node* n) {
  if (n == nullptr || n->IsNull()) return std::nullopt;
  return n->AsBool();
}

}  // namespace

void SetDefaultsSecret(codec::Node& secret) {
  if (const codec::Node* found = secret.Find("stringData"); found != nullptr) {
    // A copy: adding `data` may move the secret's members, `stringData` among them.
    const codec::Node string_data = *found;
    secret.Erase("stringData");
    if (string_data.IsObject() && !string_data.members.empty()) {
      codec::Node& data = secret.Ensure("data");
      for (const auto& m : string_data.members) {
        data.Set(m.key, codec::Node::String(Base64Encode(m.value.scalar)));
      }
    }
  }
  const codec::Node* type = secret.Find("type");
  if (type == nullptr || type->scalar.empty()) secret.Set("type", codec::Node::String("Opaque"));
}

ConfigMap ReadConfigMap(const codec::Node& object) {
  ConfigMap cm;
  cm.metadata = ReadObjectMeta(object);
  cm.immutable = OptBool(object.Find("immutable"));
  cm.data = StringMap(object.Find("data"), false);
  cm.binary_data = StringMap(object.Find("binaryData"), true);
  return cm;
}

Secret ReadSecret(const codec::Node& object) {
  Secret s;
  s.metadata = ReadObjectMeta(object);
  s.immutable = OptBool(object.Find("immutable"));
  s.data = StringMap(object.Find("data"), true);
  if (const codec::Node* type = object.Find("type")) s.type = type->scalar;
  return s;
}

}  // namespace podlimits::api
