#include "kubelet/cm/node_resources.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <charconv>
#include <string>
#include <string_view>

#include "base/fs.h"
#include "kubelet/eviction/eviction_threshold.h"

namespace podlimits::kubelet {

std::int64_t NodeMemoryBytes() {
  // /proc/meminfo's first line is "MemTotal:  <n> kB" on every kernel this runs on; a procfs
  // that cannot be read leaves the node's memory capacity 0, as the kubelet's cAdvisor does.
  const std::string meminfo = ReadWholeFile("/proc/meminfo").value_or("");
  constexpr std::string_view kKey = "MemTotal:";
  const std::size_t at = meminfo.find(kKey);
  if (at == std::string::npos) return 0;
  std::size_t digits = meminfo.find_first_not_of(' ', at + kKey.size());
  if (digits == std::string::npos) return 0;
  std::int64_t kib = 0;
  std::from_chars(meminfo.data() + digits, meminfo.data() + meminfo.size(), kib);
  return kib * 1024;
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
