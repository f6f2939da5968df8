// AppArmor for a container, as the kubelet chooses the profile and containerd applies it.
//
// Which profile (the kubelet's apparmor.GetProfile, then containerd's generateApparmorSpecOpts):
//   - the container's securityContext.appArmorProfile, else its deprecated annotation
//     (container.apparmor.security.beta.kubernetes.io/<name>), else the pod's;
//   - RuntimeDefault: the runtime's default profile, `podlimits-default` (DefaultAppArmorProfile
//     below: the policy Docker, containerd and podman share), loaded with apparmor_parser the
//     first time a container needs it;
//   - none set: the default profile too, unless the container is privileged (containerd's
//     behaviour on a host that supports AppArmor);
//   - Localhost: the named profile, which must already be loaded on the node;
//   - Unconfined: none.
//
// The node: the kernel has AppArmor when /sys/module/apparmor/parameters/enabled says Y and
// securityfs shows /sys/kernel/security/apparmor (runc's IsEnabled, the kubelet's check); the
// runtime can apply profiles when /sbin/apparmor_parser also exists (containerd's hostSupports).
// A pod that sets a profile other than Unconfined on a node without AppArmor is refused with the
// kubelet's admission message (`Cannot enforce AppArmor: AppArmor is not enabled on the host`);
// where containerd would silently run RuntimeDefault unconfined (no apparmor_parser), or crun
// would fail late (a Localhost profile not loaded), podlimits refuses it up front too. A container
// that sets nothing on such a node runs without a profile, as on containerd.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "api/objects.h"
#include "base/error.h"

namespace podlimits::cri {

inline constexpr std::string_view kDefaultAppArmorProfileName = "podlimits-default";

struct AppArmorHost {
  bool kernel_enabled = false;          // runc's apparmor.IsEnabled
  std::filesystem::path parser;         // apparmor_parser; empty when not installed
  std::set<std::string> loaded;         // the loaded profiles' names when probed
  std::filesystem::path profiles_file;  // <securityfs>/apparmor/profiles

  bool CanLoadProfiles() const { return kernel_enabled && !parser.empty(); }
};

// Probes the node below `fs_root` ("/" on a real node).
AppArmorHost ProbeAppArmor(const std::filesystem::path& fs_root = "/");

// The names in an apparmor `profiles` file ("name (enforce)" lines).
std::set<std::string> ParseLoadedProfiles(std::string_view text);

// apparmor.GetProfile: the profile field in effect for `container`, nullopt when none is set.
std::optional<api::AppArmorProfile> ContainerAppArmorField(const api::Pod& pod,
                                                           const api::Container& container);

// The kubelet's isRequired: some profile other than Unconfined is set (field or annotation).
bool PodRequiresAppArmor(const api::Pod& pod);

// The admission check: why the node cannot run `pod`'s AppArmor profiles, after
// "Cannot enforce AppArmor: ", or nullopt when it can.
std::optional<std::string> AppArmorAdmissionProblem(const api::Pod& pod, const AppArmorHost& host);

// process.apparmorProfile for `container`: nullopt for none.
std::optional<std::string> ContainerAppArmorProfile(const api::Pod& pod,
                                                    const api::Container& container,
                                                    const AppArmorHost& host);

// The default profile's policy text. `apparmor_dir` (/etc/apparmor.d) decides, as containerd's
// template does, whether the abi, tunables and base abstraction are included or @{PROC} is
// defined inline.
std::string DefaultAppArmorProfile(const std::filesystem::path& apparmor_dir = "/etc/apparmor.d");

// Loads the default profile unless `host` has it already: writes it to `dir`/podlimits-default
// and runs `apparmor_parser -Kr` on it (replace; no cache written). Marks it loaded in `host`.
Result<void> EnsureDefaultAppArmorProfile(AppArmorHost& host, const std::filesystem::path& dir);

}  // namespace podlimits::cri
