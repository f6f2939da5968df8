#include "kubelet/cm/resource_config.h"

#include <algorithm>

#include "api/pod_resources.h"
#include "api/qos.h"

namespace podlimits::kubelet {
namespace {

constexpr std::uint64_t kMinShares = 2;
constexpr std::uint64_t kMaxShares = 262144;
constexpr std::int64_t kMinQuotaPeriod = 1000;

std::int64_t Milli(const api::ResourceList& list, const char* name) {
  auto it = list.find(name);
  return it == list.end() ? 0 : it->second.MilliValue();
}
std::int64_t Value(const api::ResourceList& list, const char* name) {
  auto it = list.find(name);
  return it == list.end() ? 0 : it->second.Value();
}
bool Declared(const api::ResourceList& list, const char* name) {
  auto it = list.find(name);
  return it != list.end() && !it->second.IsZero();
}

std::string CpuMax(std::int64_t milli) {
  const std::int64_t quota = MilliCpuToQuota(milli);
  return quota > 0 ? std::to_string(quota) + " " + std::to_string(kCpuPeriodUs)
                   : "max " + std::to_string(kCpuPeriodUs);
}

}  // namespace

std::uint64_t MilliCpuToShares(std::int64_t milli) {
  if (milli <= 0) return kMinShares;
  const std::uint64_t shares = static_cast<std::uint64_t>(milli) * 1024 / 1000;
  return std::clamp(shares, kMinShares, kMaxShares);
}

std::uint64_t SharesToWeight(std::uint64_t shares) {
  if (shares == 0) return 0;
  return 1 + ((shares - 2) * 9999) / 262142;
}

std::int64_t MilliCpuToQuota(std::int64_t milli) {
  if (milli <= 0) return 0;
  return std::max(milli * kCpuPeriodUs / 1000, kMinQuotaPeriod);
}

std::int64_t PodCpuRequestMilli(const api::Pod& pod) {
  const api::PodSpec& spec = pod.spec;
  return Milli(api::IsPodLevelResourcesSet(spec) && spec.resources
                   ? spec.resources->requests
                   : api::AggregateContainerRequests(spec),
               "cpu");
}

std::map<std::string, std::string> QosResourceFiles(cgroups::QosClass qos,
                                                    std::int64_t burstable_cpu_milli) {
  switch (qos) {
    case cgroups::QosClass::kGuaranteed:
      return {};  // Guaranteed pods sit in kubepods itself
    case cgroups::QosClass::kBestEffort:
      return {{"cpu.weight", std::to_string(SharesToWeight(kMinShares))}};
    case cgroups::QosClass::kBurstable:
      return {{"cpu.weight",
               std::to_string(SharesToWeight(MilliCpuToShares(burstable_cpu_milli)))}};
  }
  return {};
}

std::map<std::string, std::string> KubepodsResourceFiles(std::int64_t allocatable_cpu_milli,
                                                         std::int64_t allocatable_memory) {
  return {{"cpu.weight",
           std::to_string(SharesToWeight(MilliCpuToShares(allocatable_cpu_milli)))},
          {"memory.max", std::to_string(allocatable_memory)}};
}

std::map<std::string, std::string> PodResourceFiles(const api::Pod& pod) {
  const api::PodSpec& spec = pod.spec;
  api::ResourceList requests, limits;
  if (api::IsPodLevelResourcesSet(spec) && spec.resources) {
    requests = spec.resources->requests;
    limits = spec.resources->limits;
  } else {
    requests = api::AggregateContainerRequests(spec);
    limits = api::AggregateContainerLimits(spec);
  }
  const api::QosClass qos = api::ComputePodQos(pod);
  std::map<std::string, std::string> files;
  if (qos == api::QosClass::kBestEffort) {
    files["cpu.weight"] = std::to_string(SharesToWeight(kMinShares));
    return files;
  }
  files["cpu.weight"] = std::to_string(SharesToWeight(MilliCpuToShares(Milli(requests, "cpu"))));
  bool cpu_declared = true, memory_declared = true;
  if (!(api::IsPodLevelResourcesSet(spec) && spec.resources)) {
    for (const auto& c : spec.containers) {
      cpu_declared = cpu_declared && Declared(c.resources.limits, "cpu");
      memory_declared = memory_declared && Declared(c.resources.limits, "memory");
    }
  } else {
    cpu_declared = Declared(limits, "cpu");
    memory_declared = Declared(limits, "memory");
  }
  if (qos == api::QosClass::kGuaranteed || cpu_declared) files["cpu.max"] = CpuMax(Milli(limits, "cpu"));
  if (qos == api::QosClass::kGuaranteed || memory_declared) {
    files["memory.max"] = std::to_string(Value(limits, "memory"));
  }
  return files;
}

std::map<std::string, std::string> ContainerResourceFiles(const api::Container& c) {
  std::map<std::string, std::string> files;
  const auto& r = c.resources;
  // The request, or the limit when only that is set (defaulting copied it), as containerd's
  // shares come from the CRI's cpu_shares.
  const std::int64_t request = Milli(r.requests, "cpu");
  files["cpu.weight"] = std::to_string(SharesToWeight(MilliCpuToShares(request)));
  files["cpu.max"] = CpuMax(Milli(r.limits, "cpu"));
  if (Declared(r.limits, "memory")) {
    files["memory.max"] = std::to_string(Value(r.limits, "memory"));
    files["memory.swap.max"] = "0";
  }
  return files;
}

}  // namespace podlimits::kubelet
