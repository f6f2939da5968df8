#include "api/qos.h"

#include <optional>
#include <string>

#include "api/pod_resources.h"

namespace podlimits::api {
namespace {

bool IsQosResource(const std::string& name) {
  return name == "cpu" || name == "memory";
}

// The sums getQOSResources keeps, in fixed slots: only cpu and memory count, so no map (and no
// allocation) is needed per pod.
struct QosSums {
  std::optional<resource::Quantity> cpu, memory;

  std::optional<resource::Quantity>* Slot(const std::string& name) {
    if (name == "cpu") return &cpu;
    if (name == "memory") return &memory;
    return nullptr;
  }
  bool Empty() const { return !cpu && !memory; }
  int Size() const { return (cpu ? 1 : 0) + (memory ? 1 : 0); }
};

// processResourceList: adds the positive cpu/memory quantities of `add` to `sum`.
void Accumulate(QosSums& sum, const ResourceList& add) {
  for (const auto& [name, quantity] : add) {
    std::optional<resource::Quantity>* slot = sum.Slot(name);
    if (!slot || quantity.Sign() <= 0) continue;
    if (*slot) {
      (*slot)->Add(quantity);
    } else {
      *slot = quantity;
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

// Every request has an equal limit (requests[name] == limits[name] for each name requested).
bool RequestsEqualLimits(const QosSums& requests, const QosSums& limits) {
  auto equal = [](const std::optional<resource::Quantity>& request, const std::optional<resource::Quantity>& limit) {
    return !request || (limit && *limit == *request);
  };
  return equal(requests.cpu, limits.cpu) && equal(requests.memory, limits.memory);
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
  QosSums requests;
  QosSums limits;
  bool guaranteed = true;
  if (pod_level_resources && IsPodLevelResourcesSet(pod.spec)) {
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
  if (requests.Empty() && limits.Empty()) return QosClass::kBestEffort;
  if (guaranteed && RequestsEqualLimits(requests, limits) && requests.Size() == limits.Size()) {
    return QosClass::kGuaranteed;
  }
  return QosClass::kBurstable;
}

}  // namespace podlimits::api
