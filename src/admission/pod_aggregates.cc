// podRequests / podLimits of the LimitRanger plugin (its local, spec-only copies of the
// component-helpers pod resource helpers).
#include "admission/limit_ranger.h"
#include "validation/resource_names.h"

namespace podlimits::admission {
namespace {

using api::Quantity;
using api::ResourceList;

// addResourceList: sums key by key; a key only some lists have is kept, not dropped. Quantity's
// Add keeps the format of the first non-zero addend, which shows in messages (1Gi + 512Mi ->
// 1536Mi).
void AddInto(ResourceList& total, const ResourceList& more) {
  for (const auto& [name, q] : more) {
    auto [it, inserted] = total.try_emplace(name, q);
    if (!inserted) it->second.Add(q);
  }
}

// maxResourceList: per key, the larger value (an absent key counts as smaller than anything).
void MaxInto(ResourceList& peak, const ResourceList& other) {
  for (const auto& [name, q] : other) {
    auto it = peak.find(name);
    if (it == peak.end()) {
      peak.emplace(name, q);
    } else if (q.Cmp(it->second) > 0) {
      it->second = q;
    }
  }
}

template <typename Pick>
ResourceList Aggregate(const api::PodSpec& spec, Pick pick) {
  ResourceList total;
  for (const api::Container& c : spec.containers) AddInto(total, pick(c));
  // Sidecars run alongside everything after them; a plain init container runs alone next to
  // the sidecars started before it.
  ResourceList sidecars;
  ResourceList init_peak;
  for (const api::Container& c : spec.init_containers) {
    if (c.IsSidecar()) {
      AddInto(total, pick(c));
      AddInto(sidecars, pick(c));
      MaxInto(init_peak, sidecars);
    } else {
      ResourceList running = pick(c);
      AddInto(running, sidecars);
      MaxInto(init_peak, running);
    }
  }
  MaxInto(total, init_peak);
  return total;
}

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
  ResourceList totals = Aggregate(pod.spec, [](const api::Container& c) -> const ResourceList& {
    return c.resources.requests;
  });
  if (pod_level_resources && pod.spec.resources) {
    OverrideWithPodLevel(totals, pod.spec.resources->requests);
  }
  return totals;
}

ResourceList PodLimits(const api::Pod& pod, bool pod_level_resources, bool pid_enabled) {
  ResourceList totals = Aggregate(
      pod.spec, [](const api::Container& c) -> const ResourceList& { return c.resources.limits; });
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
