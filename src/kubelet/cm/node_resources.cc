#include "kubelet/cm/node_resources.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "kubelet/eviction/eviction_threshold.h"

namespace podlimits::kubelet {

std::int64_t NodeMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemTotal:") return kib * 1024;
  }
  return 0;
}

api::ResourceList NodeCapacity(const NodeConfig& config) {
  using resource::Quantity;
  using resource::QuantityFormat;
  api::ResourceList capacity;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  capacity["cpu"] = Quantity::NewQuantity(cpus > 0 ? cpus : 1, QuantityFormat::kDecimalSI);
  capacity["memory"] = Quantity::NewQuantity(NodeMemoryBytes(), QuantityFormat::kBinarySI);
  struct statvfs st {};
  std::int64_t storage = 0;
  if (statvfs(config.state_directory.c_str(), &st) == 0 ||
      statvfs(std::string("/").c_str(), &st) == 0) {
    storage = static_cast<std::int64_t>(st.f_blocks) * static_cast<std::int64_t>(st.f_frsize);
  }
  capacity["ephemeral-storage"] = Quantity::NewQuantity(storage, QuantityFormat::kBinarySI);
  return capacity;
}

api::ResourceList NodeAllocatable(const NodeConfig& config) {
  const api::ResourceList capacity = NodeCapacity(config);
  api::ResourceList allocatable = capacity;
  for (auto& [name, value] : allocatable) {
    for (const api::ResourceList* reserved : {&config.system_reserved, &config.kube_reserved}) {
      if (auto it = reserved->find(name); it != reserved->end()) value.Sub(it->second);
    }
  }
  const std::int64_t memory_capacity = capacity.at("memory").Value();
  for (const EvictionThreshold& t : config.eviction_hard) {
    if (t.signal != "memory.available") continue;
    allocatable["memory"].Sub(resource::Quantity::NewQuantity(ThresholdQuantity(t, memory_capacity),
                                                         resource::QuantityFormat::kBinarySI));
  }
  for (auto& [name, value] : allocatable) {
    if (value.Sign() < 0) value = resource::Quantity::NewQuantity(0, resource::QuantityFormat::kDecimalSI);
  }
  return allocatable;
}

}  // namespace podlimits::kubelet
