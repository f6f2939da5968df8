#include "apiserver/served_resources.h"

namespace podlimits::apiserver {

std::span<const ServedResource> ServedResources() {
  static const std::vector<std::string_view> kObjectVerbs = {"create", "delete", "get", "list",
                                                             "patch",  "update", "watch"};
  static const std::vector<std::string_view> kStatusVerbs = {"get", "patch", "update"};
  static const std::vector<ServedResource> kResources = {
      {"configmaps", "configmap", "ConfigMap", true, kObjectVerbs, {"cm"}, {}, {}},
      {"events", "event", "Event", true, kObjectVerbs, {"ev"}, {}, {}},
      {"limitranges", "limitrange", "LimitRange", true, kObjectVerbs, {"limits"}, {}, {}},
      {"namespaces",
       "namespace",
       "Namespace",
       false,
       kObjectVerbs,
       {"ns"},
       {},
       {{"status", "Namespace", kStatusVerbs}}},
      {"nodes",
       "node",
       "Node",
       false,
       kObjectVerbs,
       {"no"},
       {},
       {{"status", "Node", kStatusVerbs}}},
      {"pods",
       "pod",
       "Pod",
       true,
       kObjectVerbs,
       {"po"},
       {"all"},
       {{"eviction", "Eviction", {"create"}},
        {"log", "Pod", {"get"}},
        {"status", "Pod", kStatusVerbs}}},
      {"secrets", "secret", "Secret", true, kObjectVerbs, {}, {}, {}},
  };
  return kResources;
}

const ServedResource* FindServedResource(std::string_view name) {
  for (const ServedResource& r : ServedResources()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

}  // namespace podlimits::apiserver
