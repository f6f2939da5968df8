// The container's root filesystem and the mounts every container gets.
#include "cri/spec_opts.h"

namespace podlimits::cri {

Result<void> WithRootfs(const ContainerSpecInput& input, Spec& spec) {
  const auto& sc = input.container->security_context;
  spec.root.path = input.rootfs.string();
  spec.root.readonly = sc && sc->read_only_root_filesystem.value_or(false);
  return {};
}

Result<void> WithDefaultMounts(const ContainerSpecInput& input, Spec& spec) {
  const api::PodSpec& pod = input.pod->spec;
  auto& mounts = spec.mounts;
  mounts.push_back({"/proc", "proc", "proc", {"nosuid", "noexec", "nodev"}});
  mounts.push_back(
      {"/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"}});
  mounts.push_back({"/dev/pts",
                    "devpts",
                    "devpts",
                    {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}});
  if (pod.host_ipc) {
    // hostIPC shares POSIX shared memory with the host too: it lives in the host's /dev/shm
    // (containerd bind-mounts it the same way).
    mounts.push_back(
        {"/dev/shm", "bind", "/dev/shm", {"rbind", "nosuid", "nodev", "noexec", "rw"}});
  } else {
    mounts.push_back(
        {"/dev/shm", "tmpfs", "shm", {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}});
  }
  mounts.push_back({"/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"}});
  // A fresh sysfs also with hostNetwork: the kernel only refuses it inside a user namespace
  // that does not own the network namespace, and podlimits uses none. A bind of the host's
  // /sys (what rootless runtimes fall back to) would carry the host's submounts, /sys/fs/cgroup
  // among them, where `ro` on the top mount does not reach.
  mounts.push_back({"/sys",
                    "sysfs",
                    "sysfs",
                    {"nosuid", "noexec", "nodev", input.container->IsPrivileged() ? "rw" : "ro"}});
  return {};
}

Result<void> WithCgroupMount(const ContainerSpecInput& input, Spec& spec) {
  // KEP-5474: only mountMode Writable makes the cgroup mount writable, also for a privileged
  // container (containerd's WithPrivileged would make it rw). The runtime mounts the
  // container's cgroup namespace root here on a v2 host.
  spec.mounts.push_back({"/sys/fs/cgroup",
                         "cgroup",
                         "cgroup",
                         {"nosuid", "noexec", "nodev", "relatime",
                          input.container->HasWritableCgroup() ? "rw" : "ro"}});
  return {};
}

Result<void> WithVolumeMounts(const ContainerSpecInput& input, Spec& spec) {
  spec.mounts.insert(spec.mounts.end(), input.volume_mounts.begin(), input.volume_mounts.end());
  return {};
}

}  // namespace podlimits::cri
