// One container instance from bundle to removal, as the kubelet's kuberuntime_container does
// through CRI, here straight against the OCI runtime:
//
//   Create   <pod_dir>/<name>/: overlay rootfs over the image, config.json, `runtime create`
//            with the container's stdout/stderr on pipes; then the init process's
//            /proc/<pid>/limits is checked against the granted rlimits and any the runtime did
//            not apply is set with prlimit(2) (a Warning event says which)
//   Start    `runtime start`
//   Remove   `runtime delete --force`, the overlay unmounted, the bundle removed
//
// A failed Create has removed what it made before it returns; Remove is safe to call on any
// instance, any number of times. Remove kills what still runs in the container's cgroup first
// (a hostPID container's background processes outlive its init), so that the runtime's `delete`
// finds an empty cgroup.
#pragma once

#include <sys/types.h>

#include <expected>
#include <filesystem>
#include <memory>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "cri/oci_runtime.h"
#include "cri/process_limits.h"
#include "kubelet/podworker/container_input.h"
#include "kubelet/volumes/container_env.h"
#include "kubelet/volumes/pod_volumes.h"
#include "image/snapshotter.h"
#include "image/store.h"
#include "kubelet/events/events.h"
#include "kubelet/plan/pod_plan.h"

namespace podlimits::kubelet {

struct ContainerContext {
  cri::ContainerRuntime* runtime = nullptr;
  image::Snapshotter* snapshotter = nullptr;  // the container's root filesystem
  std::vector<std::string> host_capabilities;  // BoundingCapabilities()
  cri::SeccompSettings seccomp;
  pid_t sandbox_pid = 0;  // the pod sandbox's holder, whose namespaces containers join
  PodVolumes* volumes = nullptr;  // the pod's volumes, set up
  EnvContext env;                 // what the containers' environment is made from
  std::filesystem::path pod_cgroup;            // "/kubepods/besteffort/pod<uid>"
  // Kills every process in a cgroup (relative to the hierarchy roots) in every managed
  // hierarchy; unset: nothing is killed through the cgroup.
  std::function<Result<void>(const std::filesystem::path&)> kill_cgroup;
};

// Why a container could not be created or started: the reasons (base/error.h) of CreateContainer's
// and StartContainer's errors, the kubelet's words. An error without one of them is the node's:
// it could not prepare the container (bundle, overlay, spec, an rlimit that does not hold).
//
// The OCI runtime's `create` or `start` refused it (e.g. its executable does not exist): the
// container's own failure, as the kubelet's StartError (containerd's errorStartReason and
// errorStartExitCode), which restartPolicy answers like any other exit.
inline constexpr std::string_view kStartErrorReason = "StartError";
inline constexpr int kStartErrorExitCode = 128;
// The pod's own settings cannot make a container config (runAsNonRoot with a root user). Nothing
// was created.
inline constexpr std::string_view kCreateContainerConfigError = "CreateContainerConfigError";
// What the pod asks cannot be set up (a seccomp profile that cannot be loaded), as the CRI runtime
// reports it. Nothing was created.
inline constexpr std::string_view kCreateContainerError = "CreateContainerError";

struct ContainerInstance {
  std::string name;
  std::string id;
  std::filesystem::path dir;  // the bundle: config.json, upper/work/merged, runtime.log
  pid_t pid = 0;              // the container's init process, in this pid namespace
  int stdout_fd = -1;         // read ends, non-blocking; -1 once closed
  int stderr_fd = -1;
  // Its stdin pipe or terminal, with `stdin: true`: what `kubectl attach -i` writes to.
  std::shared_ptr<ContainerInput> input;
  std::vector<cri::ProcessLimit> limits;  // /proc/<pid>/limits after any correction
  bool seccomp_wanted = false;            // the spec has a filter
  int seccomp_mode = 0;                   // /proc/<pid>/status Seccomp: 0, 1 or 2 (filter)
  // The file bind-mounted at terminationMessagePath, in the bundle; empty when none.
  std::filesystem::path termination_log;
  bool created = false;                   // the runtime knows the id
  bool rootfs_mounted = false;
};

// `pid_namespace_of`: a process whose PID namespace the container joins (an ephemeral
// container's target); 0: the pod's rule (shareProcessNamespace, hostPID, or its own).
Result<ContainerInstance> CreateContainer(const ContainerContext& ctx, const PodPlan& pod,
                                          const ContainerPlan& container,
                                          const image::Image& image, EventRecorder& events,
                                          pid_t pid_namespace_of = 0);

// A failure the runtime reports is kStartErrorReason; one of running it at all, the node's.
Result<void> StartContainer(const ContainerContext& ctx, ContainerInstance& instance);

// Returns the errors met (empty when everything went); never stops half-way.
std::vector<std::string> RemoveContainer(const ContainerContext& ctx, ContainerInstance& instance);

}  // namespace podlimits::kubelet
