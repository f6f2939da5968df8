// What this machine can enforce: cgroup mode, nsdelegate, the OCI runtime, and the rlimits the
// node can hand to a container. A plain struct, so tests describe any node; Probe fills it from
// the real one.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cgroups/detect.h"
#include "cri/apparmor.h"
#include "kubelet/config/node_config.h"
#include "kubelet/cm/runtime_lookup.h"

namespace podlimits::kubelet {

// An rlimit value as the kernel holds it; RLIM_INFINITY is "unlimited".
using RlimValue = std::uint64_t;
inline constexpr RlimValue kRlimInfinity = ~RlimValue{0};

// KEP-5758's six ulimit names and the resources they set.
struct UlimitResource {
  std::string_view name;         // "nofile"
  std::string_view rlimit_name;  // "RLIMIT_NOFILE"
  int resource;                  // RLIMIT_NOFILE
};
std::span<const UlimitResource> UlimitResources();
const UlimitResource* FindUlimitResource(std::string_view name);

enum class RlimitHolder { kKubelet, kRuncWrapper, kNriPlugin };

struct NodeCapabilities {
  // std::nullopt when the mount table could not be read (cgroup_error says why).
  std::optional<cgroups::CgroupMode> cgroup_mode;
  bool nsdelegate = false;       // the cgroup2 mount has nsdelegate in its super options
  bool pids_controller = false;  // a pids controller exists (v1 hierarchy or in cgroup2)
  // cgroup v2 only: the unified root offers these, so cpu and memory are enforced
  // (resource_config.h). Never on v1/hybrid, where those hierarchies are not podlimits'.
  bool cpu_controller = false;
  bool memory_controller = false;
  std::string cgroup_error;

  RuntimeInfo runtime;

  // Raising a hard rlimit above the caller's own needs CAP_SYS_RESOURCE in the initial user
  // namespace; the OCI runtime inherits podlimits' capabilities and limits.
  bool cap_sys_resource = false;
  // This process's hard limit for each ulimit name (getrlimit).
  std::map<std::string, RlimValue, std::less<>> hard_limits;
  // Whose limits these are: the kubelet's, those of the CRI runtime that ran podlimits-runc, or
  // the NRI plugin's own (it stands in for the runtime: deploy/nri runs it privileged). Only the
  // wording of a refusal differs: it names what refused.
  RlimitHolder rlimit_holder = RlimitHolder::kKubelet;
  // /proc/sys/fs/nr_open; std::nullopt when unreadable (the kernel default 1048576 is assumed).
  std::optional<std::int64_t> nr_open;
  // AppArmor in the kernel, apparmor_parser, the loaded profiles (cri/apparmor.h).
  cri::AppArmorHost apparmor;

  bool CgroupV2() const { return cgroup_mode == cgroups::CgroupMode::kV2; }
};

struct ProbeOptions {
  std::filesystem::path proc_root = "/proc";
  std::filesystem::path fs_root = "/";  // where the cgroup mount points are looked up
  std::string path_env;                 // PATH for the runtime lookup; the caller passes getenv
  bool runtime_version = false;         // run `<runtime> --version` (node-info only)
};

// Fills the rlimit part of `caps` (cap_sys_resource, hard_limits, nr_open) from this process:
// what a runtime it starts can grant a container.
void ProbeRlimits(NodeCapabilities& caps, const std::filesystem::path& proc_root = "/proc");

// Probes the machine. Never fails: what cannot be read is reported in the struct.
NodeCapabilities ProbeNodeCapabilities(const NodeConfig& config, const ProbeOptions& options);

}  // namespace podlimits::kubelet
