// linux.seccomp of a container's spec: the profile its security context asks for, read from the
// node and converted for this machine's architecture and the container's capabilities.
//
// Profiles are JSON in the format Docker, podman and containerd share: the OCI LinuxSeccomp
// fields (defaultAction, defaultErrnoRet, architectures, flags, syscalls[].names/action/
// errnoRet/args) plus the Docker extensions a maintained default profile uses: archMap (the
// architectures to list for the native one), and per syscall rule `includes`/`excludes` by
// `arches` (Go architecture names), `caps` (the container's bounding set) and `minKernel`. The
// conversion is containers/common's (pkg/seccomp setupSeccomp): a rule whose includes do not
// hold, or whose excludes do, is left out.
//
// Which profile (the kubelet's and containerd's rules):
//   - a privileged container: none (containerd never filters one);
//   - the container's seccompProfile, else the pod's, else RuntimeDefault when the
//     KubeletConfiguration sets seccompDefault: true, else Unconfined;
//   - RuntimeDefault: the node's default profile, by default Debian's
//     /usr/share/containers/seccomp.json (golang-github-containers-common, podman's default);
//   - Localhost: `<profile root>/<localhostProfile>` (the kubelet's <root-dir>/seccomp), opened
//     beneath the root with no symlink followed, so a profile path cannot leave it;
//   - Unconfined: none.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "cri/spec.h"

namespace podlimits::cri {

struct SeccompSettings {
  std::filesystem::path default_profile = "/usr/share/containers/seccomp.json";
  std::filesystem::path profile_root = "/var/lib/kubelet/seccomp";
  bool seccomp_default = false;  // KubeletConfiguration seccompDefault
};

// What a profile is converted for.
struct SeccompTarget {
  std::string go_arch;    // "amd64": the names `includes.arches` uses
  std::string scmp_arch;  // "SCMP_ARCH_X86_64": the archMap key
  std::vector<std::string> capabilities;  // the container's bounding set, "CAP_SYS_ADMIN", ...
  std::string kernel_release;             // uname -r, for minKernel
};

// This machine's architecture and kernel, with the given capabilities.
SeccompTarget NativeSeccompTarget(std::vector<std::string> capabilities);

// Converts a profile's JSON text. `source` names it in errors.
Result<SpecSeccomp> ConvertSeccompProfile(std::string_view json, std::string_view source,
                                          const SeccompTarget& target);

// The profile type in effect for a container ("RuntimeDefault", "Localhost", "Unconfined") and,
// for Localhost, the profile's path below the root.
struct EffectiveSeccomp {
  std::string type;
  std::string localhost_profile;
  std::string field;  // where it was set: "spec.containers[0].securityContext.seccompProfile"
};
EffectiveSeccomp EffectiveSeccompProfile(const api::Pod& pod, const api::Container& container,
                                         const SeccompSettings& settings);

// The filter for a container whose bounding set is `capabilities`, or nullopt when it runs
// unconfined. Errors say which profile could not be read or converted, and why.
Result<std::optional<SpecSeccomp>> ContainerSeccomp(const api::Pod& pod,
                                                    const api::Container& container,
                                                    const SeccompSettings& settings,
                                                    const std::vector<std::string>& capabilities);

}  // namespace podlimits::cri
