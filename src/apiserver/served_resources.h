// The resources `podlimits serve` serves, all in the core group (v1), with what discovery says
// about each: the names, kind, scope, verbs, short names and subresources kube-apiserver
// publishes for them (the verbs podlimits implements; deletecollection, proxy, exec and the
// like are not offered until they are).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace podlimits::apiserver {

struct ServedSubresource {
  std::string_view name;  // "status"
  std::string_view kind;  // the response kind: "Pod", "Eviction", ...
  std::vector<std::string_view> verbs;
};

struct ServedResource {
  std::string_view name;           // "pods"
  std::string_view singular;       // "pod"
  std::string_view kind;           // "Pod"
  bool namespaced = true;
  std::vector<std::string_view> verbs;
  std::vector<std::string_view> short_names;
  std::vector<std::string_view> categories;
  std::vector<ServedSubresource> subresources;
};

// In the order discovery lists them (sorted by name, as kube-apiserver's).
std::span<const ServedResource> ServedResources();

// The resource by its plural name, or nullptr.
const ServedResource* FindServedResource(std::string_view name);

}  // namespace podlimits::apiserver
