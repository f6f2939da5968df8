// The pod plan: everything the node decides about an admitted pod before it creates anything
// (the kubelet's SyncPod inputs): its uid, QoS class, pod cgroup and effective pids.max, and for
// each container the runtime id, the image and the rlimits node admission granted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/objects.h"
#include "cgroups/pod_cgroups.h"
#include "cgroups/qos.h"
#include "cri/oci_spec.h"
#include "kubelet/cm/effective_pid_limit.h"
#include "kubelet/lifecycle/node_admission.h"
#include "kubelet/config/node_config.h"
#include "kubelet/network/pod_etc_files.h"

namespace podlimits::kubelet {

// The kubelet's minimumGracePeriodInSeconds (pkg/kubelet/kuberuntime/kuberuntime_container.go,
// killContainer): "always give containers a minimal shutdown window to avoid unnecessary
// SIGKILLs", also for terminationGracePeriodSeconds 0.
inline constexpr std::int64_t kMinimumGracePeriodSeconds = 2;

struct ContainerPlan {
  api::Container container;
  std::string id;  // the OCI runtime's container id: 64 hex digits, as containerd's
  std::vector<cri::Rlimit> rlimits;
  // cgroup v2 files of the container's cgroup (resource_config.h); empty when the node does
  // not enforce cpu and memory.
  std::map<std::string, std::string> resource_files;
  bool writable_cgroup = false;  // securityContext.cgroupOptions.mountMode: Writable
  // process.apparmorProfile (cri/apparmor.h); unset: none.
  std::optional<std::string> apparmor_profile;
};

struct PodPlan {
  api::Pod pod;
  std::string uid;  // metadata.uid, or a new random UUID when the manifest has none
  cgroups::QosClass qos = cgroups::QosClass::kBestEffort;
  cgroups::PodCgroupPlan cgroup;
  EffectivePidLimit pid_limit;
  std::vector<ContainerPlan> init_containers;  // in order; sidecars among them
  std::vector<ContainerPlan> containers;
  std::filesystem::path pod_dir;  // <stateDirectory>/pods/<uid>: one bundle per container
  std::string sandbox_id;         // the sandbox holder's runtime id (pod_holder.h)
  // terminationGracePeriodSeconds, raised to the kubelet's minimum: between SIGTERM and SIGKILL
  // a container always gets at least kMinimumGracePeriodSeconds.
  std::int64_t grace_period_seconds = 30;
  std::string restart_policy = "Always";
  // The pod's hostname and the /etc files its containers get (pod_etc_files.h).
  PodHostnames hostnames;
  PodEtcFiles etc_files;
  // Events of the sandbox's configuration (MissingClusterDNS): recorded when the sandbox is
  // made, after the pod cgroup, where generatePodSandboxConfig emits them upstream.
  std::vector<Event> sandbox_events;

  // "web_default(uid)" as the kubelet names a pod in its messages.
  std::string PodDescription() const;
};

// `admit` is node admission's result for `pod` (admitted); its granted ulimits become rlimits.
// `pid_capacity` is the node's (pid_capacity.h), for kubepods' pids.max.
PodPlan PlanPod(const api::Pod& pod, const NodeConfig& config, const AdmitResult& admit,
                const validation::FeatureGates& gates, std::optional<std::int64_t> pid_capacity,
                bool enforce_cpu_memory = false);

// One container's plan (a new runtime id, the rlimits `admit` granted it): what PlanPod makes for
// each container, and the node for an ephemeral container added later.
ContainerPlan PlanContainer(const api::Container& c, const AdmitResult& admit);

// "nofile" -> "RLIMIT_NOFILE".
std::string RlimitType(std::string_view ulimit_name);

}  // namespace podlimits::kubelet
