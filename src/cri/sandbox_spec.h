// The OCI spec of a pod's sandbox holder: the process that owns the namespaces a pod's
// containers share, as the pause container does under the kubelet and containerd.
//
// The holder is a static binary (Debian's catatonit, run as `catatonit -P`: podman's pause
// process) bind-mounted read-only into an otherwise empty, read-only root, run as 65535:65535
// with no capabilities and no_new_privs, in the pod cgroup (so it counts against the pod's
// pids.max, as upstream's pause container does). It gets:
//   - a network namespace (loopback up) unless hostNetwork, and the pod's UTS namespace with
//     the pod's hostname unless hostNetwork (then the node's, as containerd does);
//   - an IPC namespace unless hostIPC;
//   - a PID namespace unless hostPID: with shareProcessNamespace the containers join it and
//     the holder is their PID 1 (reaping what they orphan), else each container has its own;
//   - its own mount and cgroup namespaces, which nothing joins.
#pragma once

#include <filesystem>
#include <string>

#include "api/objects.h"
#include "base/error.h"
#include "cri/spec.h"

namespace podlimits::cri {

struct SandboxSpecInput {
  const api::Pod* pod = nullptr;
  std::filesystem::path rootfs;          // an empty directory (holds the holder's mount point)
  std::filesystem::path holder_binary;   // /usr/bin/catatonit
  std::string cgroups_path;              // "/kubepods/besteffort/pod<uid>/<sandbox-id>"
};

inline constexpr const char* kHolderMountPoint = "/pod-holder";

Result<Spec> BuildSandboxSpec(const SandboxSpecInput& input);

// The namespace files of a running holder a container joins: "/proc/<pid>/ns/<type>".
std::string HolderNamespacePath(pid_t holder_pid, std::string_view type);

}  // namespace podlimits::cri
