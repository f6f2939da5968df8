#include "apiserver/pod_container.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace podlimits::apiserver {

using api::Node;

std::vector<std::string> PodContainerNames(const Node& pod) {
  std::vector<std::string> out;
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    const Node* items = pod.FindPath({"spec", list});
    if (items == nullptr || !items->IsArray()) continue;
    for (const Node& c : items->items) {
      if (const Node* n = c.Find("name"); n && n->IsString()) out.push_back(n->scalar);
    }
  }
  return out;
}

std::expected<std::string, ApiError> ResolvePodContainer(const Node& pod,
                                                         std::string_view requested,
                                                         std::string_view pod_name) {
  const auto names = PodContainerNames(pod);
  if (requested.empty()) {
    const Node* apps = pod.FindPath({"spec", "containers"});
    if (apps != nullptr && apps->IsArray() && apps->items.size() == 1) {
      return api::StringOf(apps->items[0].Find("name"));
    }
    return std::unexpected(BadRequest(fmt::format(
        "a container name must be specified for pod {}, choose one of: [{}]", pod_name,
        fmt::join(names, " "))));
  }
  if (std::find(names.begin(), names.end(), requested) == names.end()) {
    return std::unexpected(
        BadRequest(fmt::format("container {} is not valid for pod {}", requested, pod_name)));
  }
  return std::string(requested);
}

}  // namespace podlimits::apiserver
