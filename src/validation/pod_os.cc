// validateLinux / validateWindows: the security settings one OS cannot honour, in upstream's
// order (pod securityContext first, then each container, init containers first).
#include "validation/pod.h"

namespace podlimits::validation {
namespace {

constexpr std::string_view kWindows = "cannot be set for a windows pod";

}  // namespace

field::ErrorList ValidateWindows(const api::PodSpec& spec) {
  field::ErrorList errs;
  const field::Path s("spec");
  const field::Path psc = s.Child("securityContext");
  auto forbid = [&errs](const field::Path& p) {
    errs.push_back(field::Forbidden(p, std::string(kWindows)));
  };
  // The internal PodSecurityContext also holds the v1 spec's hostUsers, hostPID, hostIPC and
  // shareProcessNamespace (and always exists after conversion).
  const api::PodSecurityContext empty;
  const api::PodSecurityContext& sc = spec.security_context ? *spec.security_context : empty;
  if (sc.app_armor_profile) forbid(psc.Child("appArmorProfile"));
  if (sc.se_linux_options) forbid(psc.Child("seLinuxOptions"));
  if (spec.host_users) forbid(s.Child("hostUsers"));
  if (spec.host_pid) forbid(s.Child("hostPID"));
  if (spec.host_ipc) forbid(s.Child("hostIPC"));
  if (sc.seccomp_profile) forbid(psc.Child("seccompProfile"));
  if (sc.fs_group) forbid(psc.Child("fsGroup"));
  if (sc.fs_group_change_policy) forbid(psc.Child("fsGroupChangePolicy"));
  if (!sc.sysctls.empty()) forbid(psc.Child("sysctls"));
  if (spec.share_process_namespace) forbid(s.Child("shareProcessNamespace"));
  if (sc.run_as_user) forbid(psc.Child("runAsUser"));
  if (sc.run_as_group) forbid(psc.Child("runAsGroup"));
  if (sc.supplemental_groups_set) forbid(psc.Child("supplementalGroups"));
  if (sc.supplemental_groups_policy) forbid(psc.Child("supplementalGroupsPolicy"));
  if (sc.se_linux_change_policy) forbid(psc.Child("seLinuxChangePolicy"));
  api::VisitContainers(spec, [&](const api::Container& c) {
    const field::Path path = api::ContainerPath(c);
    if (!c.security_context) return;
    const api::SecurityContext& csc = *c.security_context;
    field::Path p = path.Child("securityContext");
    if (csc.app_armor_profile) forbid(p.Child("appArmorProfile"));
    if (csc.se_linux_options) forbid(p.Child("seLinuxOptions"));
    if (csc.seccomp_profile) forbid(p.Child("seccompProfile"));
    if (csc.capabilities) forbid(p.Child("capabilities"));
    if (csc.read_only_root_filesystem) forbid(p.Child("readOnlyRootFilesystem"));
    if (csc.privileged) forbid(p.Child("privileged"));
    if (csc.allow_privilege_escalation) forbid(p.Child("allowPrivilegeEscalation"));
    if (csc.proc_mount) forbid(p.Child("procMount"));
    if (csc.run_as_user) forbid(p.Child("runAsUser"));
    if (csc.run_as_group) forbid(p.Child("runAsGroup"));
    // KEP-5758 (kubernetes#137023 adds it here, after the upstream checks).
    if (csc.ulimits && !csc.ulimits->empty()) forbid(p.Child("ulimits"));
  });
  return errs;
}

field::ErrorList ValidateLinux(const api::PodSpec& spec) {
  field::ErrorList errs;
  constexpr std::string_view kDetail = "windows options cannot be set for a linux pod";
  if (spec.security_context && spec.security_context->windows_options) {
    errs.push_back(
        field::Forbidden(field::Path("spec").Child("securityContext").Child("windowsOptions"),
                         std::string(kDetail)));
  }
  api::VisitContainers(spec, [&](const api::Container& c) {
    const field::Path path = api::ContainerPath(c);
    if (c.security_context && c.security_context->windows_options) {
      errs.push_back(field::Forbidden(path.Child("securityContext").Child("windowsOptions"),
                                      std::string(kDetail)));
    }
  });
  return errs;
}

}  // namespace podlimits::validation
