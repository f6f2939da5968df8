// What a pod reads from the API besides itself: the ConfigMaps and Secrets of its namespace, as
// the kubelet's configMapManager and secretManager serve them. `podlimits run` serves the objects
// of its input stream; the node agent serves its store.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "api/config_data.h"
#include "field/field.h"

namespace podlimits::kubelet {

class ObjectSource {
 public:
  virtual ~ObjectSource() = default;
  virtual std::optional<api::ConfigMap> GetConfigMap(std::string_view namespace_,
                                                     std::string_view name) const = 0;
  virtual std::optional<api::Secret> GetSecret(std::string_view namespace_,
                                               std::string_view name) const = 0;
};

// A fixed set of objects (the admitted ConfigMaps and Secrets of one input).
class StaticObjectSource : public ObjectSource {
 public:
  void Add(api::ConfigMap cm) {
    auto key = std::pair(cm.metadata.namespace_, cm.metadata.name);
    config_maps_[std::move(key)] = std::move(cm);
  }
  void Add(api::Secret secret) {
    auto key = std::pair(secret.metadata.namespace_, secret.metadata.name);
    secrets_[std::move(key)] = std::move(secret);
  }
  std::optional<api::ConfigMap> GetConfigMap(std::string_view namespace_,
                                             std::string_view name) const override {
    return Find(config_maps_, namespace_, name);
  }
  std::optional<api::Secret> GetSecret(std::string_view namespace_,
                                       std::string_view name) const override {
    return Find(secrets_, namespace_, name);
  }

 private:
  template <typename T>
  static std::optional<T> Find(const std::map<std::pair<std::string, std::string>, T>& objects,
                               std::string_view namespace_, std::string_view name) {
    auto it = objects.find(std::pair(std::string(namespace_), std::string(name)));
    if (it == objects.end()) return std::nullopt;
    return it->second;
  }

  std::map<std::pair<std::string, std::string>, api::ConfigMap> config_maps_;
  std::map<std::pair<std::string, std::string>, api::Secret> secrets_;
};

// The kubelet's NotFound errors for them (its managers name the resource in the singular):
// `configmap "app" not found`, `secret "creds" not found`.
inline std::string ConfigMapNotFound(std::string_view name) {
  return "configmap " + field::GoQuote(name) + " not found";
}
inline std::string SecretNotFound(std::string_view name) {
  return "secret " + field::GoQuote(name) + " not found";
}

}  // namespace podlimits::kubelet
