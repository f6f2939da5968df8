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
// instance, any number of times.
#pragma once

#include <sys/types.h>

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "node/events.h"
#include "runtime/image_store.h"
#include "runtime/oci_runtime.h"
#include "runtime/pod_plan.h"
#include "runtime/process_limits.h"

namespace podlimits::runtime {

struct ContainerContext {
  OciRuntimeClient* runtime = nullptr;
  std::vector<std::string> host_capabilities;  // BoundingCapabilities()
  std::filesystem::path pod_cgroup;            // "/kubepods/besteffort/pod<uid>"
};

struct ContainerInstance {
  std::string name;
  std::string id;
  std::filesystem::path dir;  // the bundle: config.json, upper/work/merged, runtime.log
  pid_t pid = 0;              // the container's init process, in this pid namespace
  int stdout_fd = -1;         // read ends, non-blocking; -1 once closed
  int stderr_fd = -1;
  std::vector<ProcessLimit> limits;  // /proc/<pid>/limits after any correction
  bool created = false;              // the runtime knows the id
  bool rootfs_mounted = false;
};

std::expected<ContainerInstance, std::string> CreateContainer(const ContainerContext& ctx,
                                                              const PodPlan& pod,
                                                              const ContainerPlan& container,
                                                              const Image& image,
                                                              node::EventRecorder& events);

std::expected<void, std::string> StartContainer(const ContainerContext& ctx,
                                                ContainerInstance& instance);

// Returns the errors met (empty when everything went); never stops half-way.
std::vector<std::string> RemoveContainer(const ContainerContext& ctx, ContainerInstance& instance);

}  // namespace podlimits::runtime
