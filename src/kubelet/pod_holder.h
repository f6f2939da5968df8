// The pod sandbox's holder process: created and started through the OCI runtime once the pod
// cgroup exists and before any container, removed after the last container (the kubelet's
// RunPodSandbox / StopPodSandbox / RemovePodSandbox with a pause container). Its spec is
// cri/sandbox_spec.h; the containers join its namespaces through /proc/<pid>/ns/*, which stay
// valid as long as podlimits (the holder's subreaper) has not reaped it.
#pragma once

#include <sys/types.h>

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"
#include "kubelet/container_lifecycle.h"
#include "kubelet/pod_plan.h"

namespace podlimits::kubelet {

// The holder's name in records, bundles and events: not a valid container name, so it never
// clashes with one (the kubelet calls its infra container "POD" too).
inline constexpr std::string_view kSandboxName = "POD";

struct PodHolder {
  std::string id;
  std::filesystem::path bundle;
  pid_t pid = 0;         // owned through the ChildReaper until StopPodHolder reaps it
  bool created = false;  // the runtime knows the id
};

// Creates and starts the holder of `plan`'s pod. On failure nothing of it remains.
std::expected<PodHolder, Error> StartPodHolder(const ContainerContext& ctx, const PodPlan& plan,
                                               const std::filesystem::path& holder_binary);

// Kills the holder through its cgroup, deletes it from the runtime and reaps it. Every step's
// error is returned; the holder is forgotten only once the runtime has deleted it.
std::vector<std::string> StopPodHolder(const ContainerContext& ctx, PodHolder& holder);

}  // namespace podlimits::kubelet
