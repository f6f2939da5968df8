// podRequests / podLimits of the LimitRanger plugin (its local, spec-only copies of the
// component-helpers pod resource helpers).
#include "admission/limit_ranger.h"
#include "api/pod_resources.h"
#include "validation/resource_names.h"

namespace podlimits::admission {
namespace {

using resource::Quantity;
using api::ResourceList;

// LimitRanger's supportedPodLevelResources: only these override the aggregate (pod-level
// hugepages are ignored, upstream issue #141247).
bool OverridesAggregate(std::string_view name) {
  return name == validation::kResourceCpu || name == validation::kResourceMemory;
}

void OverrideWithPodLevel(ResourceList& totals, const ResourceList& pod_level) {
  for (const auto& [name, q] : pod_level) {
    if (OverridesAggregate(name)) totals.insert_or_assign(name, q);
  }
}

}  // namespace

ResourceList PodRequests(const api::Pod& pod, bool pod_level_resources) {
  ResourceList totals = api::AggregateContainerRequests(pod.spec);
  if (pod_level_resources && pod.spec.resources) {
    OverrideWithPodLevel(totals, pod.spec.resources->requests);
  }
  return totals;
}

ResourceList PodLimits(const api::Pod& pod, bool pod_level_resources, bool pid_enabled) {
  ResourceList totals = api::AggregateContainerLimits(pod.spec);
  if (pod_level_resources && pod.spec.resources) {
    OverrideWithPodLevel(totals, pod.spec.resources->limits);
  }
  if (pid_enabled) {
    // pid exists only at pod level (pod validation rejects it in containers), so the pod's own
    // limit is the whole story.
    std::string pid(validation::kResourcePid);
    totals.erase(pid);
    if (pod.spec.resources) {
      auto it = pod.spec.resources->limits.find(pid);
      if (it != pod.spec.resources->limits.end()) totals.emplace(pid, it->second);
    }
  }
  return totals;
}

}  // namespace podlimits::admission
