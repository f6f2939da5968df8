#include "nodeagent/store_object_source.h"

#include "listwatch/stored_object.h"

namespace podlimits::nodeagent {
namespace {

std::optional<codec::Node> Load(storage::ObjectStore& store, const char* resource,
                              std::string_view namespace_, std::string_view name) {
  auto got = store.Get({resource, std::string(namespace_), std::string(name)});
  if (!got) return std::nullopt;
  return apiserver::ParseStoredObject(got->data);
}

}  // namespace

std::optional<api::ConfigMap> StoreObjectSource::GetConfigMap(std::string_view namespace_,
                                                              std::string_view name) const {
  auto object = Load(store_, "configmaps", namespace_, name);
  if (!object) return std::nullopt;
  return api::ReadConfigMap(*object);
}

std::optional<api::Secret> StoreObjectSource::GetSecret(std::string_view namespace_,
                                                        std::string_view name) const {
  auto object = Load(store_, "secrets", namespace_, name);
  if (!object) return std::nullopt;
  return api::ReadSecret(*object);
}

}  // namespace podlimits::nodeagent
