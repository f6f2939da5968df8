#include "podstreams/pod_container.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "listwatch/stored_object.h"

namespace podlimits::apiserver {

using codec::Node;

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
      return codec::StringOf(apps->items[0].Find("name"));
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

std::expected<codec::Node, ApiError> LoadPod(storage::ObjectStore& store, const storage::ObjectKey& key) {
  auto got = store.Get(key);
  if (!got) {
    if (got.error().Is(storage::kNotFound)) {
      return std::unexpected(NotFound("pods", key.name));
    }
    return std::unexpected(InternalError(got.error().Message()));
  }
  auto pod = ParseStoredObject(got->data);
  if (!pod) return std::unexpected(CorruptStoredObject(*got));
  return std::move(*pod);
}

const codec::Node* PodContainerSpec(const codec::Node& pod, std::string_view name) {
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    const codec::Node* items = pod.FindPath({"spec", list});
    if (items == nullptr || !items->IsArray()) continue;
    for (const codec::Node& c : items->items) {
      if (codec::StringOf(c.Find("name")) == name) return &c;
    }
  }
  return nullptr;
}

}  // namespace podlimits::apiserver
