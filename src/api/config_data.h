// ConfigMap and Secret: the objects a pod reads its configuration from (env, envFrom and
// volumes), as the API stores them.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "api/objects.h"
#include "codec/node.h"

namespace podlimits::api {

struct ConfigMap {
  ObjectMeta metadata;
  std::optional<bool> immutable;
  std::map<std::string, std::string> data;
  std::map<std::string, std::string> binary_data;  // decoded bytes
};

struct Secret {
  ObjectMeta metadata;
  std::optional<bool> immutable;
  std::map<std::string, std::string> data;  // decoded bytes
  std::string type;                          // "Opaque" after defaulting
};

// The apiserver's handling of a Secret before validation: the v1 -> internal conversion merges
// `stringData` into `data` (a stringData key wins) and drops it, as the API never returns
// stringData; SetDefaults_Secret sets `type: Opaque`.
void SetDefaultsSecret(codec::Node& secret);

// Extraction from strictly-decoded trees (base64 already checked by the decoder).
ConfigMap ReadConfigMap(const codec::Node& object);
Secret ReadSecret(const codec::Node& object);

}  // namespace podlimits::api
