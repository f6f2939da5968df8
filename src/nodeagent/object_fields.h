// The fields of stored objects the node agent reads (node_agent.h and its parts): a string or
// integer at a path, whether a stored pod is the one a uid names, the Node's PIDPressure.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "api/objects.h"
#include "codec/node.h"
#include "nodeagent/static_pods.h"

namespace podlimits::nodeagent {

// The string at `path`, "" when there is none.
inline std::string Str(const codec::Node& object, std::initializer_list<std::string_view> path) {
  return codec::StringOf(object.FindPath(path));
}

inline std::optional<std::int64_t> IntAt(const codec::Node& object,
                                         std::initializer_list<std::string_view> path) {
  return codec::IntOf(object.FindPath(path));
}

// The stored pod is the one `uid` names: itself, or the mirror of that static pod.
inline bool IsPod(const codec::Node& pod, const std::string& uid) {
  if (Str(pod, {"metadata", "uid"}) == uid) return true;
  return Str(pod, {"metadata", "annotations", std::string(kConfigMirrorAnnotation)}) == uid;
}

// The status of the node's PIDPressure condition ("" when it has none).
inline std::string PidPressureStatus(const codec::Node& node) {
  const codec::Node* conditions = node.FindPath({"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return "";
  for (const codec::Node& c : conditions->items) {
    if (Str(c, {"type"}) == "PIDPressure") return Str(c, {"status"});
  }
  return "";
}

}  // namespace podlimits::nodeagent
