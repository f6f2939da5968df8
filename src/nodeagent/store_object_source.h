// The ConfigMaps and Secrets a pod reads, from the node's object store (the kubelet's
// configMapManager / secretManager with the Get strategy: read when the pod needs them).
#pragma once

#include "storage/object_store.h"
#include "kubelet/object_source.h"

namespace podlimits::nodeagent {

class StoreObjectSource : public kubelet::ObjectSource {
 public:
  explicit StoreObjectSource(storage::ObjectStore& store) : store_(store) {}
  std::optional<api::ConfigMap> GetConfigMap(std::string_view namespace_,
                                             std::string_view name) const override;
  std::optional<api::Secret> GetSecret(std::string_view namespace_,
                                       std::string_view name) const override;

 private:
  storage::ObjectStore& store_;
};

}  // namespace podlimits::nodeagent
