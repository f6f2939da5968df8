// How many processes (tasks) each of the node's pods has: pids.current of its pod cgroup in the
// managed hierarchy that has the pids controller, the count the eviction manager ranks pods by
// under PIDPressure (upstream's ProcessStats.ProcessCount, summed over the pod).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cgroups/hierarchies.h"
#include "codec/node.h"
#include "kubelet/config/node_config.h"

namespace podlimits::kubelet {

struct PodPids {
  std::int64_t current = 0;             // pids.current
  std::optional<std::int64_t> max;      // pids.max; nullopt for "max"
};

class PodProcessCounter {
 public:
  // Detects the managed hierarchies once; a node without a pids controller counts nothing.
  explicit PodProcessCounter(const NodeConfig& config);
  // For tests: given hierarchies.
  PodProcessCounter(const NodeConfig& config, std::vector<cgroups::ManagedHierarchy> hierarchies);

  // The pod's pids.current and pids.max; nullopt when its cgroup is not there (not started,
  // or gone).
  std::optional<PodPids> Read(const codec::Node& pod) const;

 private:
  std::filesystem::path cgroup_root_;
  bool pod_level_resources_ = false;
  std::optional<cgroups::ManagedHierarchy> pids_;
};

}  // namespace podlimits::kubelet
