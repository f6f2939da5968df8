// Restricted checks (policy/check_*.go at restricted level). At restricted, every baseline
// check also runs unless a restricted check in force names it in override_check_ids.
#include <set>

#include "admission/psa_checks.h"

namespace podlimits::admission::psa {
namespace {

using api::ObjectMeta;
using api::PodSpec;

std::vector<std::string> ToVector(const std::set<std::string>& s) {
  return {s.begin(), s.end()};
}

// --- allowPrivilegeEscalation (v1.8; v1.25 exempts Windows pods). ---

CheckResult AllowPrivilegeEscalation_1_8(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> containers;
  VisitContainers(spec, [&](const api::Container& c) {
    // Only an explicit false passes: unset means the runtime may allow escalation.
    if (!c.security_context || c.security_context->allow_privilege_escalation != false) {
      containers.push_back(c.name);
    }
  });
  if (containers.empty()) return CheckResult::Allow();
  return CheckResult::Forbid(
      "allowPrivilegeEscalation != false",
      ContainersPhrase(containers) + " must set securityContext.allowPrivilegeEscalation=false");
}

CheckResult AllowPrivilegeEscalation_1_25(const ObjectMeta& meta, const PodSpec& spec) {
  if (spec.IsWindows()) return CheckResult::Allow();
  return AllowPrivilegeEscalation_1_8(meta, spec);
}

// --- capabilities_restricted (v1.22; v1.25 exempts Windows pods). ---

CheckResult CapabilitiesRestricted_1_22(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> missing_drop_all;
  std::vector<std::string> adding_forbidden;
  std::set<std::string> forbidden_caps;
  VisitContainers(spec, [&](const api::Container& c) {
    if (!c.security_context || !c.security_context->capabilities) {
      missing_drop_all.push_back(c.name);
      return;
    }
    const api::Capabilities& caps = *c.security_context->capabilities;
    // Only the exact string ALL counts; "all" or a list of every capability does not.
    bool dropped_all = false;
    for (const auto& d : caps.drop) dropped_all = dropped_all || d == "ALL";
    if (!dropped_all) missing_drop_all.push_back(c.name);
    bool bad_add = false;
    for (const auto& a : caps.add) {
      if (a != "NET_BIND_SERVICE") {
        bad_add = true;
        forbidden_caps.insert(a);
      }
    }
    if (bad_add) adding_forbidden.push_back(c.name);
  });
  std::vector<std::string> details;
  if (!missing_drop_all.empty()) {
    details.push_back(ContainersPhrase(missing_drop_all) +
                      R"( must set securityContext.capabilities.drop=["ALL"])");
  }
  if (!adding_forbidden.empty()) {
    details.push_back(ContainersPhrase(adding_forbidden) + " must not include " +
                      JoinQuote(ToVector(forbidden_caps)) + " in securityContext.capabilities.add");
  }
  if (details.empty()) return CheckResult::Allow();
  return CheckResult::Forbid("unrestricted capabilities", Join(details, "; "));
}

CheckResult CapabilitiesRestricted_1_25(const ObjectMeta& meta, const PodSpec& spec) {
  if (spec.IsWindows()) return CheckResult::Allow();
  return CapabilitiesRestricted_1_22(meta, spec);
}

// --- cgroupOptions_restricted (KEP-5474, v1.38). ---

// Writable cgroups hand a container its own cgroup subtree; ReadOnly and unset stay allowed.
CheckResult CgroupOptionsRestricted_1_38(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> containers;
  VisitContainers(spec, [&](const api::Container& c) {
    if (c.HasWritableCgroup()) {
      containers.push_back(c.name);
    }
  });
  if (containers.empty()) return CheckResult::Allow();
  return CheckResult::Forbid(
      "cgroupOptions",
      ContainersPhrase(containers) +
          R"( must not set securityContext.cgroupOptions.mountMode to "Writable")");
}

// --- procMount_restricted (v1.35): procMount without the user-namespace relaxation. ---

CheckResult ProcMountRestricted_1_35(const ObjectMeta&, const PodSpec& spec) {
  return ProcMountDefaultOnly(spec);
}

// --- restrictedVolumes (v1.0). ---

bool AllowedVolumeSource(std::string_view source) {
  // `image` joined the list in k8s 1.33 without a policy version bump, so it is allowed at
  // every version, as it is by kube-apiserver's code today.
  for (std::string_view ok : {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image",
                              "persistentVolumeClaim", "projected", "secret"}) {
    if (source == ok) return true;
  }
  return false;
}

std::string RestrictedVolumeType(std::string_view source) {
  for (std::string_view known : {"hostPath",
                                 "gcePersistentDisk",
                                 "awsElasticBlockStore",
                                 "gitRepo",
                                 "nfs",
                                 "iscsi",
                                 "glusterfs",
                                 "rbd",
                                 "flexVolume",
                                 "cinder",
                                 "cephfs",
                                 "flocker",
                                 "fc",
                                 "azureFile",
                                 "vsphereVolume",
                                 "quobyte",
                                 "azureDisk",
                                 "photonPersistentDisk",
                                 "portworxVolume",
                                 "scaleIO",
                                 "storageos"}) {
    if (source == known) return std::string(known);
  }
  return "unknown";
}

CheckResult RestrictedVolumes_1_0(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> volumes;
  std::set<std::string> types;
  for (const auto& v : spec.volumes) {
    if (AllowedVolumeSource(v.source)) continue;
    volumes.push_back(v.name);
    types.insert(RestrictedVolumeType(v.source));
  }
  if (volumes.empty()) return CheckResult::Allow();
  return CheckResult::Forbid("restricted volume types",
                             std::string(Pluralize("volume", "volumes", volumes.size())) + " " +
                                 JoinQuote(volumes) + " " +
                                 std::string(Pluralize("uses", "use", volumes.size())) + " " +
                                 std::string(Pluralize("restricted volume type",
                                                       "restricted volume types", types.size())) +
                                 " " + JoinQuote(ToVector(types)));
}

// --- runAsNonRoot (v1.0; v1.35 relaxes it for user-namespaced pods). ---

CheckResult RunAsNonRoot_1_0(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> setters;  // explicit runAsNonRoot=false
  bool pod_non_root = false;
  if (spec.security_context && spec.security_context->run_as_non_root) {
    if (*spec.security_context->run_as_non_root) {
      pod_non_root = true;
    } else {
      setters.push_back("pod");
    }
  }
  std::vector<std::string> explicitly_bad, implicitly_bad;
  VisitContainers(spec, [&](const api::Container& c) {
    if (c.security_context && c.security_context->run_as_non_root) {
      if (!*c.security_context->run_as_non_root) explicitly_bad.push_back(c.name);
    } else if (!pod_non_root) {
      implicitly_bad.push_back(c.name);
    }
  });
  if (!explicitly_bad.empty()) setters.push_back(ContainersPhrase(explicitly_bad));
  // An explicit false is the only thing reported when present.
  if (!setters.empty()) {
    return CheckResult::Forbid(
        "runAsNonRoot != true",
        Join(setters, " and ") + " must not set securityContext.runAsNonRoot=false");
  }
  if (!implicitly_bad.empty()) {
    return CheckResult::Forbid("runAsNonRoot != true",
                               "pod or " + ContainersPhrase(implicitly_bad) +
                                   " must set securityContext.runAsNonRoot=true");
  }
  return CheckResult::Allow();
}

CheckResult RunAsNonRoot_1_35(const ObjectMeta& meta, const PodSpec& spec) {
  if (RelaxForUserNamespacePod(spec)) return CheckResult::Allow();
  return RunAsNonRoot_1_0(meta, spec);
}

// --- runAsUser (v1.23; v1.35 relaxes it for user-namespaced pods). ---

CheckResult RunAsUser_1_23(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> setters;
  if (spec.security_context && spec.security_context->run_as_user == 0) setters.push_back("pod");
  std::vector<std::string> containers;
  VisitContainers(spec, [&](const api::Container& c) {
    if (c.security_context && c.security_context->run_as_user == 0) containers.push_back(c.name);
  });
  if (!containers.empty()) setters.push_back(ContainersPhrase(containers));
  if (setters.empty()) return CheckResult::Allow();
  return CheckResult::Forbid("runAsUser=0", Join(setters, " and ") + " must not set runAsUser=0");
}

CheckResult RunAsUser_1_35(const ObjectMeta& meta, const PodSpec& spec) {
  if (RelaxForUserNamespacePod(spec)) return CheckResult::Allow();
  return RunAsUser_1_23(meta, spec);
}

// --- seccompProfile_restricted (v1.19; v1.25 exempts Windows pods). ---

CheckResult SeccompProfileRestricted_1_19(const ObjectMeta&, const PodSpec& spec) {
  auto valid = [](std::string_view t) { return t == "RuntimeDefault" || t == "Localhost"; };
  std::vector<std::string> setters;
  std::set<std::string> bad_values;
  bool pod_set = false;
  if (spec.security_context && spec.security_context->seccomp_profile) {
    if (valid(spec.security_context->seccomp_profile->type)) {
      pod_set = true;
    } else {
      setters.push_back("pod");
      bad_values.insert(spec.security_context->seccomp_profile->type);
    }
  }
  std::vector<std::string> explicitly_bad, implicitly_bad;
  VisitContainers(spec, [&](const api::Container& c) {
    if (c.security_context && c.security_context->seccomp_profile) {
      if (!valid(c.security_context->seccomp_profile->type)) {
        explicitly_bad.push_back(c.name);
        bad_values.insert(c.security_context->seccomp_profile->type);
      }
    } else if (!pod_set) {
      implicitly_bad.push_back(c.name);
    }
  });
  if (!explicitly_bad.empty()) setters.push_back(ContainersPhrase(explicitly_bad));
  if (!setters.empty()) {
    return CheckResult::Forbid("seccompProfile",
                               Join(setters, " and ") +
                                   " must not set securityContext.seccompProfile.type to " +
                                   JoinQuote(ToVector(bad_values)));
  }
  if (!implicitly_bad.empty()) {
    return CheckResult::Forbid(
        "seccompProfile",
        "pod or " + ContainersPhrase(implicitly_bad) +
            R"( must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")");
  }
  return CheckResult::Allow();
}

CheckResult SeccompProfileRestricted_1_25(const ObjectMeta& meta, const PodSpec& spec) {
  if (spec.IsWindows()) return CheckResult::Allow();
  return SeccompProfileRestricted_1_19(meta, spec);
}

constexpr Version V(std::int64_t minor) {
  return Version::MajorMinor(minor);
}

}  // namespace

std::vector<Check> RestrictedChecks() {
  const Level r = Level::kRestricted;
  return {
      {"allowPrivilegeEscalation",
       r,
       {{V(8), AllowPrivilegeEscalation_1_8, {}}, {V(25), AllowPrivilegeEscalation_1_25, {}}}},
      {"capabilities_restricted",
       r,
       {{V(22), CapabilitiesRestricted_1_22, {"capabilities_baseline"}},
        {V(25), CapabilitiesRestricted_1_25, {"capabilities_baseline"}}}},
      // KEP-5474 writable cgroups: restricted only (baseline admits them), from v1.38.
      {"cgroupOptions_restricted", r, {{V(38), CgroupOptionsRestricted_1_38, {}}}},
      {"procMount_restricted", r, {{V(35), ProcMountRestricted_1_35, {"procMount"}}}},
      {"restrictedVolumes", r, {{V(0), RestrictedVolumes_1_0, {"hostPathVolumes"}}}},
      {"runAsNonRoot", r, {{V(0), RunAsNonRoot_1_0, {}}, {V(35), RunAsNonRoot_1_35, {}}}},
      {"runAsUser", r, {{V(23), RunAsUser_1_23, {}}, {V(35), RunAsUser_1_35, {}}}},
      {"seccompProfile_restricted",
       r,
       {{V(19), SeccompProfileRestricted_1_19, {"seccompProfile_baseline"}},
        {V(25), SeccompProfileRestricted_1_25, {"seccompProfile_baseline"}}}},
  };
}

}  // namespace podlimits::admission::psa
