// The node's configuration: a KubeletConfiguration (kubelet.config.k8s.io/v1beta1) for what the
// kubelet itself would read, plus podlimits' own NodeConfiguration for what only podlimits needs.
//
// File format — one YAML stream (or JSON values), either document optional, in any order:
//
//   apiVersion: kubelet.config.k8s.io/v1beta1
//   kind: KubeletConfiguration
//   podPidsLimit: 4096                    # > 0: pids.max of every pod cgroup; -1 / 0: none
//   maxPods: 110                          # status.capacity.pods, the scheduler's and admission's
//   kubeReserved: {pid: "1000"}           # cpu, memory, ephemeral-storage, pid
//   systemReserved: {pid: "1000"}
//   enforceNodeAllocatable: [pods]        # "pods" or "none" (see below)
//   evictionHard: {pid.available: "5%"}   # every kubelet signal is parsed, pid.available acted
//   evictionSoft: {pid.available: "10%"}  # on (eviction_manager.h); each soft one needs an
//   evictionSoftGracePeriod: {pid.available: 30s}       # evictionSoftGracePeriod entry
//   evictionMinimumReclaim: {pid.available: "1000"}
//   evictionPressureTransitionPeriod: 5m0s
//   evictionMaxPodGracePeriod: 30
//   allowedUnsafeSysctls: [net.core.somaxconn, kernel.msg*]   # beyond the safe set
//   featureGates: {PerPodPIDLimit: true}  # ContainerUlimits, PerPodPIDLimit, PodLevelResources,
//                                         # CgroupOptions
//   cgroupRoot: /                         # pods live under <cgroupRoot>/kubepods
//   cgroupDriver: cgroupfs
//   clusterDNS: [10.96.0.10]              # ClusterFirst pods' nameservers (none: the kubelet's
//   clusterDomain: cluster.local          #   MissingClusterDNS fallback to the node's resolver)
//   resolvConf: /etc/resolv.conf          # the node's resolver for dnsPolicy Default; "": none
//   podCIDR: 10.244.0.0/16                # the subnet of the CNI network podlimits writes
//   ---
//   apiVersion: podlimits.dev/v1alpha1
//   kind: NodeConfiguration
//   runtime:
//     name: crun                          # crun | runc
//     path: /usr/bin/crun                 # default: looked up in PATH
//   stateDirectory: /run/podlimits        # bundles, container state, per-run bookkeeping
//   writableCgroups:                      # bounds on the pod cgroup of a pod with a
//     maxDescendants: 250                 #   `cgroupOptions.mountMode: Writable` container
//     maxDepth: 50                        #   (cgroup.max.descendants / cgroup.max.depth)
//   managedControllers: [pids]            # the cgroup controllers podlimits creates cgroups in
//   seccomp:
//     defaultProfile: /usr/share/containers/seccomp.json   # RuntimeDefault (podman's default)
//     profileRoot: /var/lib/kubelet/seccomp                # where Localhost profiles live
//   sandboxHolder: /usr/bin/catatonit     # the process holding a pod's shared namespaces: a
//                                         # static binary that pauses with `-P` (catatonit)
//   unenforcedResources: Refuse           # a pod asking cpu, memory, ... this node does not
//                                         # enforce: Refuse (default) or Warn (runs, with a
//                                         # Warning event naming the field)
//   podNetwork:                           # pods that do not use hostNetwork get:
//     plugin: none                        #   none: loopback only (hostPort refused); cni: an
//     confDir: /etc/cni/net.d             #   address from the first network of confDir (one
//     binDirs: [/usr/lib/cni, /opt/cni/bin]   #   is written there when it has none)
//
// Both documents are decoded strictly with the project's decoder: an unknown field is an error
// naming its path (`unknown field "runtime.nmae"`), a wrong type an error naming the Go field.
// KubeletConfiguration fields podlimits does not interpret (authentication, ...) are
// accepted and ignored, so a real kubelet's config file loads; the ones it interprets are
// validated with the kubelet's messages where the kubelet has one, and with a field path
// otherwise.
//
// Defaults with no file, or for what a file leaves out: podPidsLimit -1, no reservations,
// enforceNodeAllocatable [pods], no eviction thresholds, every feature gate on (podlimits exists
// to enforce them), cgroupRoot "/", cgroupfs; runtime crun, falling back to runc when crun is not
// installed (only when runtime.name is unset); state directory /run/podlimits; writable-cgroup
// bounds 250 / 50 (KEP-5474's implementation PR); managed controllers [pids].
//
// Not supported, each a clear error rather than a silently different node: cgroupDriver systemd
// (podlimits writes cgroupfs itself), cgroupsPerQOS false (the kubepods/QoS layout is how pods
// are bounded), and enforceNodeAllocatable system-reserved / kube-reserved (podlimits does not
// manage those cgroups).
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "cri/seccomp_profile.h"
#include "kubelet/eviction/eviction_manager.h"
#include "validation/feature_gates.h"

namespace podlimits::kubelet {

inline constexpr std::string_view kKubeletConfigAPIVersion = "kubelet.config.k8s.io/v1beta1";
inline constexpr std::string_view kNodeConfigAPIVersion = "podlimits.dev/v1alpha1";

// enforceNodeAllocatable keys (pkg/kubelet/types).
inline constexpr std::string_view kEnforcePods = "pods";
inline constexpr std::string_view kEnforceNone = "none";

// KubeletConfiguration clusterDNS, clusterDomain, resolvConf.
struct DnsSettings {
  std::vector<std::string> cluster_dns;
  std::string cluster_domain;
  std::string resolv_conf = "/etc/resolv.conf";  // "" disables the host's resolver
};

enum class OciRuntime { kCrun, kRunc };
std::string_view OciRuntimeName(OciRuntime r);

struct RuntimeSettings {
  // Unset: crun, falling back to runc.
  std::optional<OciRuntime> name;
  // Empty: the runtime's name looked up in PATH.
  std::string path;
};

struct WritableCgroupBounds {
  std::int64_t max_descendants = 250;
  std::int64_t max_depth = 50;
};

// How pods that do not use the node's network get one (NodeConfiguration podNetwork).
enum class PodNetworkMode {
  kNone,  // a network namespace with loopback only; hostPort refused
  kCni,   // a CNI network (pod_network.h): an address, routes, hostPort through portmap
};

struct PodNetworkSettings {
  PodNetworkMode mode = PodNetworkMode::kNone;
  std::string conf_dir = "/etc/cni/net.d";
  std::vector<std::string> bin_dirs = {"/usr/lib/cni", "/opt/cni/bin"};
};

struct NodeConfig {
  std::string source;  // the file it was read from; "" for the built-in defaults

  // KubeletConfiguration.
  std::int64_t pod_pids_limit = -1;
  std::int64_t max_pods = 110;  // maxPods
  api::ResourceList kube_reserved;
  api::ResourceList system_reserved;
  std::vector<std::string> enforce_node_allocatable = {std::string(kEnforcePods)};
  std::vector<EvictionThreshold> eviction_hard;
  std::vector<EvictionThreshold> eviction_soft;
  // evictionPressureTransitionPeriod: how long a pressure condition stays after its threshold
  // was last met; evictionMaxPodGracePeriod: the grace period a soft eviction gives at most.
  std::chrono::nanoseconds eviction_pressure_transition_period = std::chrono::minutes(5);
  std::int64_t eviction_max_pod_grace_period = 0;
  validation::FeatureGates feature_gates;
  std::string cgroup_root = "/";
  std::string cgroup_driver = "cgroupfs";

  // NodeConfiguration.
  RuntimeSettings runtime;
  std::string state_directory = "/run/podlimits";
  WritableCgroupBounds writable_cgroups;
  std::vector<std::string> managed_controllers = {"pids"};
  bool warn_on_unenforced_resources = false;  // unenforcedResources: Warn
  // KubeletConfiguration seccompDefault, NodeConfiguration seccomp.
  cri::SeccompSettings seccomp;
  std::string sandbox_holder = "/usr/bin/catatonit";  // NodeConfiguration sandboxHolder
  std::vector<std::string> allowed_unsafe_sysctls;    // KubeletConfiguration
  // KubeletConfiguration clusterDNS, clusterDomain, resolvConf.
  DnsSettings dns;
  // KubeletConfiguration containerLogMaxSize (bytes; "10Mi"), containerLogMaxFiles, podLogsDir
  // ("" when unset: `serve` keeps the logs under its data directory, the kubelet's default is
  // /var/log/pods).
  std::int64_t container_log_max_size = 10 * 1024 * 1024;
  int container_log_max_files = 5;
  std::string pod_logs_dir;
  std::string static_pod_path;  // KubeletConfiguration staticPodPath ("" for none)
  // KubeletConfiguration podCIDR: the subnet of the network podlimits writes when the CNI
  // configuration directory holds none.
  std::string pod_cidr = "10.244.0.0/16";
  PodNetworkSettings pod_network;  // NodeConfiguration podNetwork

  // True when the kubepods cgroup is bounded by allocatable rather than capacity.
  bool EnforcesPodsAllocatable() const;
  // The reserved "pid" quantities; zero when not reserved.
  resource::Quantity KubeReservedPids() const;
  resource::Quantity SystemReservedPids() const;
  // The evictionHard pid.available threshold, when configured.
  std::optional<EvictionThreshold> PidAvailableHard() const;
};

// Every default, as documented above.
NodeConfig DefaultNodeConfig();

// Reads and validates a node config file. Errors start with the file name.
Result<NodeConfig> LoadNodeConfig(const std::filesystem::path& path);

// The same, from text already read (`source` names it in messages).
Result<NodeConfig> ParseNodeConfig(std::string_view text, std::string_view source);

// The eviction manager's settings (eviction_manager.h) from the node's evictionHard,
// evictionSoft, evictionPressureTransitionPeriod and evictionMaxPodGracePeriod.
EvictionSettings EvictionSettingsOf(const NodeConfig& config);

}  // namespace podlimits::kubelet
