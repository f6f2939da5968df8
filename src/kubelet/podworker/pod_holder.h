// The pod sandbox's holder process in the pod's life: started once the pod cgroup exists and
// before any container, stopped after the last container (the kubelet's RunPodSandbox /
// StopPodSandbox with a pause container). How it is started is cri/namespace_holder.h; the
// containers join its namespaces through /proc/<pid>/ns/*, valid as long as podlimits (its
// parent) has not reaped it.
#pragma once

#include <sys/types.h>

#include <expected>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "base/error.h"
#include "cgroups/pod_cgroups.h"
#include "cri/namespace_holder.h"
#include "kubelet/plan/pod_plan.h"

namespace podlimits::kubelet {

// The holder's name in bundles and events: not a valid container name, so it never clashes
// with one (the kubelet calls its infra container "POD" too).
inline constexpr std::string_view kSandboxName = "POD";

// Starts a holder (cri::StartNamespaceHolder on a node; unit tests fork a plain child).
using HolderStarter = std::function<Result<pid_t>(const cri::HolderRequest&)>;

struct PodHolder {
  pid_t pid = 0;  // a child of this process until StopPodHolder reaps it
};

// Creates the holder's cgroup below the pod cgroup in every hierarchy and starts the holder in
// it, with an empty root under the pod directory.
std::expected<PodHolder, Error> StartPodHolder(const HolderStarter& start, const PodPlan& plan,
                                               const cgroups::AppliedPodCgroup& cgroup,
                                               const std::filesystem::path& binary);

// Kills and reaps the holder. Its cgroup goes with the pod cgroup.
void StopPodHolder(PodHolder& holder);

}  // namespace podlimits::kubelet
