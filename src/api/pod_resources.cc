#include "api/pod_resources.h"

namespace podlimits::api {
namespace {

template <typename Pick>
ResourceList Aggregate(const PodSpec& spec, Pick pick) {
  ResourceList total;
  for (const Container& c : spec.containers) AddResourceList(total, pick(c));
  // A sidecar runs alongside everything after it; a plain init container runs alone next to the
  // sidecars started before it.
  ResourceList sidecars;
  ResourceList init_peak;
  for (const Container& c : spec.init_containers) {
    if (c.IsSidecar()) {
      AddResourceList(total, pick(c));
      AddResourceList(sidecars, pick(c));
      MaxResourceList(init_peak, sidecars);
    } else {
      ResourceList running = pick(c);
      AddResourceList(running, sidecars);
      MaxResourceList(init_peak, running);
    }
  }
  MaxResourceList(total, init_peak);
  return total;
}

}  // namespace

bool IsSupportedPodLevelResource(std::string_view name) {
  return name == "cpu" || name == "memory" || name.starts_with("hugepages-");
}

bool IsPodLevelResourcesSet(const PodSpec& spec) {
  if (!spec.resources) return false;
  for (const auto* list : {&spec.resources->requests, &spec.resources->limits}) {
    for (const auto& [name, q] : *list) {
      if (IsSupportedPodLevelResource(name)) return true;
    }
  }
  return false;
}

void AddResourceList(ResourceList& total, const ResourceList& more) {
  for (const auto& [name, q] : more) {
    auto [it, inserted] = total.try_emplace(name, q);
    if (!inserted) it->second.Add(q);
  }
}

void MaxResourceList(ResourceList& peak, const ResourceList& other) {
  for (const auto& [name, q] : other) {
    auto [it, inserted] = peak.try_emplace(name, q);
    if (!inserted && q.Cmp(it->second) > 0) it->second = q;
  }
}

ResourceList AggregateContainerRequests(const PodSpec& spec) {
  return Aggregate(spec,
                   [](const Container& c) -> const ResourceList& { return c.resources.requests; });
}

ResourceList AggregateContainerLimits(const PodSpec& spec) {
  return Aggregate(spec,
                   [](const Container& c) -> const ResourceList& { return c.resources.limits; });
}

}  // namespace podlimits::api
