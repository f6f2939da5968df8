#include "api/qos.h"

#include <string>

namespace podlimits::api {
namespace {

bool IsQosResource(const std::string& name) {
  return name == "cpu" || name == "memory";
}

// processResourceList: adds the positive cpu/memory quantities of `add` to `sum`.
void Accumulate(ResourceList& sum, const ResourceList& add) {
  for (const auto& [name, quantity] : add) {
    if (!IsQosResource(name) || quantity.Sign() <= 0) continue;
    auto it = sum.find(name);
    if (it == sum.end()) {
      sum.emplace(name, quantity);
    } else {
      it->second.Add(quantity);
    }
  }
}

// getQOSResources(...).HasAll(memory, cpu).
bool HasPositiveCpuAndMemory(const ResourceList& list) {
  int found = 0;
  for (const auto& [name, quantity] : list) {
    if (IsQosResource(name) && quantity.Sign() > 0) ++found;
  }
  return found == 2;
}

// isPodLevelResourcesSet: an entry IsSupportedPodLevelResource accepts (cpu, memory, hugepages-*).
bool PodLevelResourcesSet(const ResourceRequirements& r) {
  for (const auto* list : {&r.requests, &r.limits}) {
    for (const auto& [name, quantity] : *list) {
      if (IsQosResource(name) || name.starts_with("hugepages-")) return true;
    }
  }
  return false;
}

}  // namespace

std::string_view Name(QosClass qos) {
  switch (qos) {
    case QosClass::kGuaranteed:
      return "Guaranteed";
    case QosClass::kBurstable:
      return "Burstable";
    case QosClass::kBestEffort:
      return "BestEffort";
  }
  return "Unknown";
}

QosClass ComputePodQos(const Pod& pod, bool pod_level_resources) {
  ResourceList requests;
  ResourceList limits;
  bool guaranteed = true;
  if (pod_level_resources && pod.spec.resources && PodLevelResourcesSet(*pod.spec.resources)) {
    const ResourceRequirements& r = *pod.spec.resources;
    Accumulate(requests, r.requests);
    if (!r.limits.empty()) {
      Accumulate(limits, r.limits);
      if (!HasPositiveCpuAndMemory(r.limits)) guaranteed = false;
    }
  } else {
    auto add = [&](const std::vector<Container>& containers) {
      for (const Container& c : containers) {
        Accumulate(requests, c.resources.requests);
        Accumulate(limits, c.resources.limits);
        if (!HasPositiveCpuAndMemory(c.resources.limits)) guaranteed = false;
      }
    };
    add(pod.spec.containers);
    add(pod.spec.init_containers);
  }
  if (requests.empty() && limits.empty()) return QosClass::kBestEffort;
  if (guaranteed) {
    for (const auto& [name, request] : requests) {
      auto limit = limits.find(name);
      if (limit == limits.end() || limit->second != request) {
        guaranteed = false;
        break;
      }
    }
  }
  if (guaranteed && requests.size() == limits.size()) return QosClass::kGuaranteed;
  return QosClass::kBurstable;
}

}  // namespace podlimits::api
