#include "api/pod_level_defaults.h"

#include <array>
#include <string>

#include "api/objects.h"
#include "api/pod_resources.h"

namespace podlimits::api {
namespace {

// The containers' resources and restart policies: all the aggregates read.
std::vector<Container> ReadContainerResources(const codec::Node* list, ContainerKind kind) {
  std::vector<Container> out;
  if (!list || !list->IsArray()) return out;
  out.reserve(list->items.size());
  for (const codec::Node& item : list->items) {
    Container c;
    c.kind = kind;
    if (const codec::Node* r = item.Find("resources")) c.resources = ReadResourceRequirements(*r);
    if (const codec::Node* p = item.Find("restartPolicy"); p && p->IsString())
      c.restart_policy = p->scalar;
    out.push_back(std::move(c));
  }
  return out;
}

// AllContainersHaveLimitForResource over containers and init containers.
bool AllContainersLimit(const PodSpec& spec, const std::string& name) {
  for (const auto* list : {&spec.containers, &spec.init_containers}) {
    for (const Container& c : *list) {
      if (!c.resources.limits.contains(name)) return false;
    }
  }
  return true;
}

// IsPodLevelResourcesSet on the tree, before anything is parsed: most pods with
// spec.resources set only the pid limit, and need no aggregate at all.
bool NamesPodLevelResource(const codec::Node& resources) {
  for (std::string_view list : {"requests", "limits"}) {
    const codec::Node* l = resources.Find(list);
    if (!l || !l->IsObject()) continue;
    for (const codec::Member& m : l->members) {
      if (IsSupportedPodLevelResource(m.key)) return true;
    }
  }
  return false;
}

void SetQuantity(codec::Node& resources, std::string_view list, const std::string& name,
                 const resource::Quantity& q) {
  resources.Ensure(list).Set(name, codec::Node::String(q.String()));
}

}  // namespace

void DefaultPodLevelResources(codec::Node& spec_node) {
  codec::Node* resources = spec_node.Find("resources");
  if (!resources || !resources->IsObject() || !NamesPodLevelResource(*resources)) return;
  PodSpec spec;
  spec.resources = ReadResourceRequirements(*resources);
  if (!IsPodLevelResourcesSet(spec)) return;
  spec.containers = ReadContainerResources(spec_node.Find("containers"), ContainerKind::kContainer);
  spec.init_containers =
      ReadContainerResources(spec_node.Find("initContainers"), ContainerKind::kInit);
  ResourceList& requests = spec.resources->requests;
  ResourceList& limits = spec.resources->limits;

  const ResourceList container_limits = AggregateContainerLimits(spec);
  for (const auto& [name, q] : container_limits) {
    if (!name.starts_with("hugepages-")) continue;
    if (requests.contains(name) || limits.contains(name)) continue;
    limits.emplace(name, q);
    SetQuantity(*resources, "limits", name, q);
  }

  for (const auto& [name, q] : AggregateContainerRequests(spec)) {
    // Only the overcommittable supported resources: cpu and memory.
    if ((name != "cpu" && name != "memory") || requests.contains(name)) continue;
    requests.emplace(name, q);
    SetQuantity(*resources, "requests", name, q);
  }
  for (const auto& [name, q] : limits) {
    if (!IsSupportedPodLevelResource(name) || requests.contains(name)) continue;
    requests.emplace(name, q);
    SetQuantity(*resources, "requests", name, q);
  }

  for (const std::string name : {"cpu", "memory"}) {
    if (limits.contains(name) || !AllContainersLimit(spec, name)) continue;
    auto total = container_limits.find(name);
    if (total == container_limits.end()) continue;
    resource::Quantity limit = total->second;
    if (auto req = requests.find(name); req != requests.end() && req->second.Cmp(limit) > 0) {
      limit = req->second;
    }
    limits.emplace(name, limit);
    SetQuantity(*resources, "limits", name, limit);
  }
}

}  // namespace podlimits::api
