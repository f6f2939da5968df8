// The container's namespaces, its cgroup and the paths it may not see.
#include "cri/namespace_holder.h"
#include "cri/oci_process.h"
#include "cri/spec_opts.h"

namespace podlimits::cri {
namespace {

// containerd's defaults (pkg/oci/spec.go), the paths a container must not read or write even as
// root; a privileged container gets neither list, as with every CRI runtime.
const std::vector<std::string> kMaskedPaths = {
    "/proc/acpi",
    "/proc/asound",
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/timer_list",
    "/proc/timer_stats",
    "/proc/sched_debug",
    "/proc/scsi",
    "/sys/firmware",
    "/sys/devices/virtual/powercap",
};
const std::vector<std::string> kReadonlyPaths = {
    "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

}  // namespace

Result<void> WithHostname(const ContainerSpecInput& input, Spec& spec) {
  // A hostname needs a UTS namespace of its own; runc refuses one without. In a sandbox the
  // holder set it in the UTS namespace the container joins.
  if (!input.pod->spec.host_network && input.sandbox_pid == 0) {
    spec.hostname = input.hostname;
  }
  return {};
}

Result<void> WithNamespaces(const ContainerSpecInput& input, Spec& spec) {
  const api::PodSpec& pod = input.pod->spec;
  auto& ns = spec.linux.namespaces;
  // The holder's namespace of `type`, or a new one without a sandbox.
  auto pod_namespace = [&](std::string_view type) {
    ns.push_back({std::string(type),
                  input.sandbox_pid > 0 ? HolderNamespacePath(input.sandbox_pid, type) : ""});
  };
  if (!pod.host_pid) {
    if (input.pid_namespace_of > 0) {
      ns.push_back({"pid", HolderNamespacePath(input.pid_namespace_of, "pid")});
    } else if (pod.share_process_namespace.value_or(false)) {
      pod_namespace("pid");
    } else {
      ns.push_back({"pid", ""});
    }
  }
  if (!pod.host_ipc) pod_namespace("ipc");
  // With hostNetwork the pod also has the node's hostname (containerd shares the host's UTS
  // namespace then).
  if (!pod.host_network) pod_namespace("uts");
  ns.push_back({"mount", ""});
  if (!pod.host_network) pod_namespace("network");
  // Always: the container sees its own cgroup as "/", also when privileged. Without one, a
  // runtime's fresh cgroup2 mount from the init namespace would reset the host's nsdelegate.
  ns.push_back({"cgroup", ""});
  return {};
}

Result<void> WithCgroupsPath(const ContainerSpecInput& input, Spec& spec) {
  spec.linux.cgroups_path = input.cgroups_path;
  // cpu and memory on a cgroup v2 node that enforces them, as cgroup v2 files: the runtime
  // writes them into the container's cgroup.
  for (const auto& [file, value] : input.resource_files) spec.linux.unified[file] = value;
  return {};
}

Result<void> WithAppArmor(const ContainerSpecInput& input, Spec& spec) {
  spec.process.apparmor_profile = input.apparmor_profile;
  return {};
}

Result<void> WithSeccomp(const ContainerSpecInput& input, Spec& spec) {
  spec.linux.seccomp = input.seccomp;
  return {};
}

Result<void> WithMaskedPaths(const ContainerSpecInput& input, Spec& spec) {
  if (input.container->IsPrivileged()) return {};
  spec.linux.masked_paths = kMaskedPaths;
  spec.linux.readonly_paths = kReadonlyPaths;
  return {};
}

}  // namespace podlimits::cri
