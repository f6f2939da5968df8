// One container's OCI runtime spec (config.json, runtime-spec 1.0.2 as crun 1.8 and runc 1.1
// read it), built from the admitted pod, the container, its image and what the node granted:
// a Spec struct (spec.h) that the options of spec_opts.h fill in, one concern each, serialised
// once.
//
// What the spec carries, and where it comes from:
//   process.args        Kubernetes semantics: `command` replaces the image Entrypoint (and drops
//                       its Cmd), `args` replaces Cmd; `$(VAR)` expanded from the container's
//                       env as the kubelet does; empty result is an error.
//   process.env         image Env, then the container's `env` (value set; later wins by name),
//                       PATH defaulted when neither sets it, HOSTNAME = pod name (the node's
//                       hostname with hostNetwork, as containerd does).
//   process.cwd         workingDir, else the image's WorkingDir, else "/".
//   process.user        container runAsUser/runAsGroup, else the pod's, else the image User
//                       ("uid[:gid]" or names resolved in the rootfs's /etc/passwd and
//                       /etc/group); additionalGids: the gid, the user's groups in the image's
//                       /etc/group (containerd's Merge policy), supplementalGroups, fsGroup.
//   process.rlimits     `rlimits` as given (already resolved by node admission).
//   process.capabilities  the container runtime default set (containerd's 14), plus `add`, minus
//                       `drop` (`ALL` drops all); privileged: every capability in
//                       `host_capabilities`. Never one the host lacks (crun would fail).
//   process.noNewPrivileges  allowPrivilegeEscalation: false (and not privileged).
//   root                {path: rootfs, readonly: readOnlyRootFilesystem}
//   hostname            pod name (without hostNetwork)
//   mounts              proc, /dev tmpfs, devpts, shm (the node's /dev/shm with hostIPC), mqueue,
//                       sysfs (ro unless privileged) and /sys/fs/cgroup: type "cgroup", `ro`
//                       unless mountMode Writable (then `rw`; privileged alone does not make it
//                       rw); on a v2 host the runtime mounts the container's cgroup namespace
//                       root there.
//   linux.namespaces    pid (not with hostPID), ipc (not hostIPC), uts and network (not with
//                       hostNetwork: containerd shares the node's UTS namespace then), mount,
//                       cgroup (always: the container sees its own cgroup as /).
//   linux.cgroupsPath   `cgroups_path`, an absolute path under the pod cgroup.
//   linux.resources     none at container level: the pod's pids.max is on the pod cgroup.
//   linux.maskedPaths / readonlyPaths  the usual runtime defaults, none when privileged.
//
//   process.apparmorProfile  `apparmor_profile`, as the kubelet resolved it.
//
// Not expressed (documented in docs/node.md): SELinux labels, probes, ports.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "cri/oci_process.h"
#include "cri/spec.h"
#include "image/config.h"

namespace podlimits::cri {

struct ContainerSpecInput {
  const api::Pod* pod = nullptr;              // the admitted pod
  const api::Container* container = nullptr;  // one of pod->spec's containers
  image::ImageConfig image;
  std::filesystem::path rootfs;  // absolute: the container's overlay (merged dir)
  std::string cgroups_path;      // "/kubepods/besteffort/pod<uid>/<container-id>"
  std::vector<Rlimit> rlimits;   // in the container's ulimits order
  // The capabilities the runtime process holds in its bounding set, "CAP_CHOWN", ...
  std::vector<std::string> host_capabilities;
  // linux.seccomp, resolved and converted by ContainerSeccomp (seccomp_profile.h); unset:
  // unconfined.
  std::optional<SpecSeccomp> seccomp;
  // The pod sandbox's holder process (namespace_holder.h): the container joins its network, IPC
  // and UTS namespaces, and its PID namespace with shareProcessNamespace. 0: no sandbox, the
  // container gets namespaces of its own.
  pid_t sandbox_pid = 0;
  // A process whose PID namespace the container joins instead (an ephemeral container's
  // targetContainerName, as containerd's WithPodNamespaces with a target); 0: none.
  pid_t pid_namespace_of = 0;
  // The container's volumeMounts as bind mounts (kubelet/volumes/pod_volumes.h), after the defaults.
  std::vector<SpecMount> volume_mounts;
  // linux.resources.unified: the container's cpu and memory files (kubelet/cm/resource_config.h);
  // empty on a node that does not enforce them.
  std::map<std::string, std::string> resource_files;
  // The container's environment as the kubelet resolved it (kubelet/volumes/container_env.h): env and
  // envFrom, before the image's Env is merged in.
  EnvList env;
  // The pod's hostname as the kubelet gives it to the runtime (kubelet/network/pod_hostname.h: the FQDN
  // with setHostnameAsFQDN): the UTS name without a sandbox, and HOSTNAME. Unused with
  // hostNetwork, where both are the node's.
  std::string hostname;
  // process.apparmorProfile (cri/apparmor.h ContainerAppArmorProfile); unset: none.
  std::optional<std::string> apparmor_profile;
};

// The container's spec: every option of spec_opts.h applied in order. Errors name the field:
// `spec.containers[0]: no command: the image has neither Entrypoint nor Cmd and the container sets
// no command`, `image user "app": no such user in /etc/passwd of the image`, ...
Result<Spec> BuildContainerSpec(const ContainerSpecInput& input);

// BuildContainerSpec serialised: the config.json text.
Result<std::string> RenderOciSpec(const ContainerSpecInput& input);

// The capability names in this process's bounding set (from /proc/self/status CapBnd).
std::vector<std::string> BoundingCapabilities();

}  // namespace podlimits::cri
