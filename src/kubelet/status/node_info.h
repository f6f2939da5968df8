// What `podlimits node-info` reports: pid capacity and allocatable, cgroup mode and nsdelegate,
// the OCI runtime, the declared features (and why the others are not declared), and the ceiling
// of each ulimit. A plain struct built from the config and the probed capabilities, rendered as
// text for people or as JSON for scripts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codec/node.h"
#include "kubelet/cm/node_capabilities.h"
#include "kubelet/cm/pid_capacity.h"
#include "kubelet/cm/rlimit_ceiling.h"
#include "kubelet/config/node_config.h"
#include "kubelet/eviction/eviction_threshold.h"
#include "kubelet/lifecycle/declared_features.h"

namespace podlimits::kubelet {

struct NodeInfo {
  std::string node_name;
  std::string config_source;  // "" for the built-in defaults

  // Pids.
  PidCapacity kernel;
  std::optional<std::int64_t> capacity;
  std::string kube_reserved_pids;  // as configured ("0" when not)
  std::string system_reserved_pids;
  std::optional<std::int64_t> allocatable;
  std::optional<std::int64_t> kubepods_pids_max;
  std::vector<std::string> enforce_node_allocatable;
  std::int64_t pod_pids_limit = -1;
  std::optional<EvictionThreshold> pid_available_hard;
  std::optional<std::int64_t> tasks;  // running tasks now, for pid.available

  // Cgroups and runtime.
  std::string cgroup_mode;  // "v1", "hybrid", "v2", "unknown"
  bool nsdelegate = false;
  bool pids_controller = false;
  // cpu and memory are enforced (cgroup v2 with those controllers; resource_config.h); a pod
  // that sets them is refused elsewhere.
  bool cpu_memory_enforced = false;
  std::string cgroup_error;
  std::string cgroup_root;
  std::string cgroup_driver;
  RuntimeInfo runtime;
  // AppArmor in the kernel, and whether its default profile can be loaded (cri/apparmor.h).
  bool apparmor_enabled = false;
  bool apparmor_parser = false;

  DeclaredFeatures features;

  // Rlimits.
  bool cap_sys_resource = false;
  std::optional<std::int64_t> nr_open;
  struct Ceiling {
    std::string name;
    UlimitCeiling ceiling;
  };
  std::vector<Ceiling> ceilings;  // the six ulimit names, sorted
  // What a container gets for the rlimits its ulimits leave out (default_rlimits.h).
  std::vector<GrantedUlimit> default_rlimits;
};

NodeInfo CollectNodeInfo(const NodeConfig& config, const NodeCapabilities& caps,
                         const PidCapacity& kernel, std::optional<std::int64_t> tasks,
                         std::string node_name);

// Aligned "Label:  value" lines, grouped like `kubectl describe node`.
std::string RenderNodeInfoText(const NodeInfo& info);

// The same data as an object (apiVersion podlimits.dev/v1alpha1, kind NodeInfo); unlimited
// values are the string "unlimited", unknown ones null.
codec::Node NodeInfoTree(const NodeInfo& info);
std::string RenderNodeInfoJson(const NodeInfo& info);

}  // namespace podlimits::kubelet
