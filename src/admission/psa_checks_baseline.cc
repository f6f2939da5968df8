// Baseline checks (policy/check_*.go at baseline level). Each function is one policy version of
// one check; BaselineChecks() lists them with the version each takes effect.
#include <algorithm>
#include <array>
#include <set>

#include "admission/psa_checks.h"
#include "field/field.h"

namespace podlimits::admission::psa {
namespace {

using api::ObjectMeta;
using api::PodSpec;

std::vector<std::string> ToVector(const std::set<std::string>& s) {
  return {s.begin(), s.end()};
}

// --- appArmorProfile (v1.0): fields and the legacy beta annotations. ---

constexpr std::string_view kAppArmorAnnotationPrefix =
    "container.apparmor.security.beta.kubernetes.io/";

bool AllowedAppArmorType(std::string_view type) {
  return type == "RuntimeDefault" || type == "Localhost";
}

bool AllowedAppArmorAnnotation(std::string_view value) {
  return value.empty() || value == "runtime/default" || value.starts_with("localhost/");
}

CheckResult AppArmorProfile_1_0(const ObjectMeta& meta, const PodSpec& spec) {
  std::vector<std::string> setters;
  std::set<std::string> bad_types;
  if (spec.security_context && spec.security_context->app_armor_profile &&
      !AllowedAppArmorType(spec.security_context->app_armor_profile->type)) {
    setters.push_back("pod");
    bad_types.insert(spec.security_context->app_armor_profile->type);
  }
  std::vector<std::string> containers;
  VisitContainers(spec, [&](const api::Container& c) {
    if (c.security_context && c.security_context->app_armor_profile &&
        !AllowedAppArmorType(c.security_context->app_armor_profile->type)) {
      containers.push_back(c.name);
      bad_types.insert(c.security_context->app_armor_profile->type);
    }
  });
  if (!containers.empty()) setters.push_back(ContainersPhrase(containers));

  std::vector<std::string> bad_annotations;
  for (const auto& [key, value] : meta.annotations) {
    if (key.starts_with(kAppArmorAnnotationPrefix) && !AllowedAppArmorAnnotation(value)) {
      bad_annotations.push_back(key + "=" + field::GoQuote(value));
    }
  }
  // Sorted as whole `key="value"` strings, which is not key order: ".../a1=" < ".../a=".
  std::sort(bad_annotations.begin(), bad_annotations.end());
  if (!bad_annotations.empty()) {
    setters.emplace_back(Pluralize("annotation", "annotations", bad_annotations.size()));
  }
  if (setters.empty()) return CheckResult::Allow();

  std::vector<std::string> bad_values = ToVector(bad_types);
  bad_values.insert(bad_values.end(), bad_annotations.begin(), bad_annotations.end());
  return CheckResult::Forbid(
      std::string(Pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles",
                            bad_values.size())),
      Join(setters, " and ") + " must not set AppArmor profile type to " + JoinQuote(bad_values));
}

// --- capabilities_baseline (v1.0). ---

bool DefaultCapability(std::string_view cap) {
  // Exact and case-sensitive, without CAP_ stripping, like upstream's set lookup.
  static constexpr std::array<std::string_view, 13> kAllowed = {
      "AUDIT_WRITE",      "CHOWN",   "DAC_OVERRIDE", "FOWNER",  "FSETID", "KILL",      "MKNOD",
      "NET_BIND_SERVICE", "SETFCAP", "SETGID",       "SETPCAP", "SETUID", "SYS_CHROOT"};
  return std::find(kAllowed.begin(), kAllowed.end(), cap) != kAllowed.end();
}

CheckResult CapabilitiesBaseline_1_0(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> containers;
  std::set<std::string> bad_caps;
  VisitContainers(spec, [&](const api::Container& c) {
    if (!c.security_context || !c.security_context->capabilities) return;
    bool bad = false;
    for (const auto& cap : c.security_context->capabilities->add) {
      if (!DefaultCapability(cap)) {
        bad = true;
        bad_caps.insert(cap);
      }
    }
    if (bad) containers.push_back(c.name);
  });
  if (containers.empty()) return CheckResult::Allow();
  return CheckResult::Forbid("non-default capabilities",
                             ContainersPhrase(containers) + " must not include " +
                                 JoinQuote(ToVector(bad_caps)) +
                                 " in securityContext.capabilities.add");
}

// --- hostNamespaces (v1.0). ---

CheckResult HostNamespaces_1_0(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> set;
  if (spec.host_network) set.push_back("hostNetwork=true");
  if (spec.host_pid) set.push_back("hostPID=true");
  if (spec.host_ipc) set.push_back("hostIPC=true");
  if (set.empty()) return CheckResult::Allow();
  return CheckResult::Forbid("host namespaces", Join(set, ", "));
}

// --- hostPathVolumes (v1.0). ---

CheckResult HostPathVolumes_1_0(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> volumes;
  for (const auto& v : spec.volumes) {
    if (v.source == "hostPath") volumes.push_back(v.name);
  }
  if (volumes.empty()) return CheckResult::Allow();
  return CheckResult::Forbid(
      "hostPath volumes",
      std::string(Pluralize("volume", "volumes", volumes.size())) + " " + JoinQuote(volumes));
}

// --- hostPorts (v1.0). ---

CheckResult HostPorts_1_0(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> containers;
  std::set<std::string> ports;  // as strings, so "10000" sorts before "80", as upstream's do
  VisitContainers(spec, [&](const api::Container& c) {
    bool bad = false;
    for (const auto& p : c.ports) {
      if (p.host_port.value_or(0) != 0) {
        bad = true;
        ports.insert(std::to_string(*p.host_port));
      }
    }
    if (bad) containers.push_back(c.name);
  });
  if (containers.empty()) return CheckResult::Allow();
  return CheckResult::Forbid(
      "hostPort", ContainersPhrase(containers) + " " +
                      std::string(Pluralize("uses", "use", containers.size())) + " " +
                      std::string(Pluralize("hostPort", "hostPorts", ports.size())) + " " +
                      Join(ToVector(ports), ", "));
}

// --- hostProbesAndHostLifecycle (v1.34). ---

CheckResult HostProbesAndHostLifecycle_1_34(const ObjectMeta&, const PodSpec& spec) {
  std::set<std::string> containers;  // sorted, unlike every other container list
  std::set<std::string> hosts;
  VisitContainers(spec, [&](const api::Container& c) {
    for (const auto& h : c.handler_hosts) {
      if (h.host.empty()) continue;  // "" means unset
      containers.insert(c.name);
      hosts.insert(h.host);
    }
  });
  if (containers.empty()) return CheckResult::Allow();
  return CheckResult::Forbid("probe or lifecycle host",
                             ContainersPhrase(ToVector(containers)) + " " +
                                 std::string(Pluralize("uses", "use", containers.size())) + " " +
                                 std::string(Pluralize("probe or lifecycle host",
                                                       "probe or lifecycle hosts", hosts.size())) +
                                 " " + JoinQuote(ToVector(hosts)));
}

// --- privileged (v1.0). ---

CheckResult Privileged_1_0(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> containers;
  VisitContainers(spec, [&](const api::Container& c) {
    if (c.security_context && c.security_context->privileged == true) containers.push_back(c.name);
  });
  if (containers.empty()) return CheckResult::Allow();
  return CheckResult::Forbid(
      "privileged", ContainersPhrase(containers) + " must not set securityContext.privileged=true");
}

// --- procMount (v1.0; v1.35 relaxes it for user-namespaced pods). ---

// Before v1.35 the user-namespace relaxation sat behind an alpha gate that was off by default,
// so pinned older versions evaluate without it.
CheckResult ProcMount_1_0(const ObjectMeta&, const PodSpec& spec) {
  return ProcMountDefaultOnly(spec);
}

CheckResult ProcMount_1_35(const ObjectMeta&, const PodSpec& spec) {
  if (RelaxForUserNamespacePod(spec)) return CheckResult::Allow();
  return ProcMountDefaultOnly(spec);
}

// --- seLinuxOptions (v1.0; v1.31 adds container_engine_t). ---

CheckResult SELinuxOptions(const PodSpec& spec, bool allow_engine_type) {
  auto allowed_type = [&](std::string_view t) {
    return t.empty() || t == "container_t" || t == "container_init_t" || t == "container_kvm_t" ||
           (allow_engine_type && t == "container_engine_t");
  };
  std::set<std::string> bad_types;
  bool set_user = false, set_role = false;
  auto valid = [&](const api::SELinuxOptions& o) {
    bool ok = true;
    if (!allowed_type(o.type)) {
      ok = false;
      bad_types.insert(o.type);
    }
    if (!o.user.empty()) {
      ok = false;
      set_user = true;
    }
    if (!o.role.empty()) {
      ok = false;
      set_role = true;
    }
    return ok;
  };
  std::vector<std::string> setters;
  if (spec.security_context && spec.security_context->se_linux_options &&
      !valid(*spec.security_context->se_linux_options)) {
    setters.push_back("pod");
  }
  std::vector<std::string> containers;
  VisitContainers(spec, [&](const api::Container& c) {
    if (c.security_context && c.security_context->se_linux_options &&
        !valid(*c.security_context->se_linux_options)) {
      containers.push_back(c.name);
    }
  });
  if (!containers.empty()) setters.push_back(ContainersPhrase(containers));
  if (setters.empty()) return CheckResult::Allow();

  // User and role are reported even without a bad type (the k8s 1.26 message fix).
  std::vector<std::string> data;
  if (!bad_types.empty()) {
    data.push_back(std::string(Pluralize("type", "types", bad_types.size())) + " " +
                   JoinQuote(ToVector(bad_types)));
  }
  if (set_user) data.push_back("user may not be set");
  if (set_role) data.push_back("role may not be set");
  return CheckResult::Forbid(
      "seLinuxOptions", Join(setters, " and ") +
                            " set forbidden securityContext.seLinuxOptions: " + Join(data, "; "));
}

CheckResult SELinuxOptions_1_0(const ObjectMeta&, const PodSpec& spec) {
  return SELinuxOptions(spec, false);
}
CheckResult SELinuxOptions_1_31(const ObjectMeta&, const PodSpec& spec) {
  return SELinuxOptions(spec, true);
}

// --- seccompProfile_baseline (v1.0: alpha annotations; v1.19: fields). ---

constexpr std::string_view kSeccompPodAnnotation = "seccomp.security.alpha.kubernetes.io/pod";
constexpr std::string_view kSeccompContainerAnnotationPrefix =
    "container.seccomp.security.alpha.kubernetes.io/";

bool ValidSeccompAnnotation(std::string_view v) {
  return v == "runtime/default" || v == "docker/default" || v.starts_with("localhost/");
}

CheckResult SeccompProfileBaseline_1_0(const ObjectMeta& meta, const PodSpec& spec) {
  std::set<std::string> forbidden;
  auto check = [&](const std::string& key) {
    auto it = meta.annotations.find(key);
    if (it != meta.annotations.end() && !ValidSeccompAnnotation(it->second)) {
      forbidden.insert(key + "=" + field::GoQuote(it->second));
    }
  };
  check(std::string(kSeccompPodAnnotation));
  // Only annotations naming a container of this pod count.
  VisitContainers(spec, [&](const api::Container& c) {
    check(std::string(kSeccompContainerAnnotationPrefix) + c.name);
  });
  if (forbidden.empty()) return CheckResult::Allow();
  return CheckResult::Forbid(
      "seccompProfile", "forbidden " +
                            std::string(Pluralize("annotation", "annotations", forbidden.size())) +
                            " " + Join(ToVector(forbidden), ", "));
}

CheckResult SeccompProfileBaseline_1_19(const ObjectMeta&, const PodSpec& spec) {
  auto valid = [](std::string_view t) { return t == "RuntimeDefault" || t == "Localhost"; };
  std::vector<std::string> setters;
  std::set<std::string> bad_values;
  if (spec.security_context && spec.security_context->seccomp_profile &&
      !valid(spec.security_context->seccomp_profile->type)) {
    setters.push_back("pod");
    bad_values.insert(spec.security_context->seccomp_profile->type);
  }
  std::vector<std::string> containers;
  VisitContainers(spec, [&](const api::Container& c) {
    if (c.security_context && c.security_context->seccomp_profile &&
        !valid(c.security_context->seccomp_profile->type)) {
      containers.push_back(c.name);
      bad_values.insert(c.security_context->seccomp_profile->type);
    }
  });
  if (!containers.empty()) setters.push_back(ContainersPhrase(containers));
  if (setters.empty()) return CheckResult::Allow();
  return CheckResult::Forbid("seccompProfile",
                             Join(setters, " and ") +
                                 " must not set securityContext.seccompProfile.type to " +
                                 JoinQuote(ToVector(bad_values)));
}

// --- sysctls (v1.0, v1.27, v1.29, v1.32, v1.37: each version allows a longer prefix). ---

constexpr std::array<std::string_view, 14> kSafeSysctls = {
    // v1.0
    "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start",
    // v1.27
    "net.ipv4.ip_local_reserved_ports",
    // v1.29
    "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
    // v1.32
    "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
    // v1.37
    "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"};

CheckResult Sysctls(const PodSpec& spec, std::size_t allowed_count) {
  if (!spec.security_context) return CheckResult::Allow();
  auto first = kSafeSysctls.begin();
  auto last = first + static_cast<std::ptrdiff_t>(allowed_count);
  std::vector<std::string> bad;  // spec order, duplicates kept, as upstream reports them
  for (const auto& s : spec.security_context->sysctls) {
    if (std::find(first, last, s.name) == last) bad.push_back(s.name);
  }
  if (bad.empty()) return CheckResult::Allow();
  return CheckResult::Forbid("forbidden sysctls", Join(bad, ", "));
}

CheckResult Sysctls_1_0(const ObjectMeta&, const PodSpec& spec) {
  return Sysctls(spec, 5);
}
CheckResult Sysctls_1_27(const ObjectMeta&, const PodSpec& spec) {
  return Sysctls(spec, 6);
}
CheckResult Sysctls_1_29(const ObjectMeta&, const PodSpec& spec) {
  return Sysctls(spec, 10);
}
CheckResult Sysctls_1_32(const ObjectMeta&, const PodSpec& spec) {
  return Sysctls(spec, 12);
}
CheckResult Sysctls_1_37(const ObjectMeta&, const PodSpec& spec) {
  return Sysctls(spec, 14);
}

// --- ulimits (KEP-5758, v1.38). ---

// Any ulimits list, even an empty one, is Privileged-only (KEP-5758: Baseline and Restricted
// pods "must not include the ulimits field"), matching the upstream draft's `Ulimits != nil`.
CheckResult Ulimits_1_38(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> containers;
  VisitContainers(spec, [&](const api::Container& c) {
    if (c.security_context && c.security_context->ulimits) containers.push_back(c.name);
  });
  if (containers.empty()) return CheckResult::Allow();
  return CheckResult::Forbid(
      "ulimits", ContainersPhrase(containers) + " must not set securityContext.ulimits");
}

// --- windowsHostProcess (v1.0). ---

bool HostProcess(const std::optional<api::WindowsSecurityContextOptions>& w) {
  return w && w->host_process == true;
}

CheckResult WindowsHostProcess_1_0(const ObjectMeta&, const PodSpec& spec) {
  std::vector<std::string> containers;
  VisitContainers(spec, [&](const api::Container& c) {
    if (c.security_context && HostProcess(c.security_context->windows_options)) {
      containers.push_back(c.name);
    }
  });
  std::vector<std::string> setters;
  if (spec.security_context && HostProcess(spec.security_context->windows_options)) {
    setters.push_back("pod");
  }
  if (!containers.empty()) setters.push_back(ContainersPhrase(containers));
  if (setters.empty()) return CheckResult::Allow();
  return CheckResult::Forbid(
      "hostProcess",
      Join(setters, " and ") + " must not set securityContext.windowsOptions.hostProcess=true");
}

constexpr Version V(std::int64_t minor) {
  return Version::MajorMinor(minor);
}

}  // namespace

CheckResult ProcMountDefaultOnly(const api::PodSpec& spec) {
  std::vector<std::string> containers;
  std::set<std::string> types;
  VisitContainers(spec, [&](const api::Container& c) {
    if (!c.security_context || !c.security_context->proc_mount) return;
    if (*c.security_context->proc_mount != "Default") {
      containers.push_back(c.name);
      types.insert(*c.security_context->proc_mount);
    }
  });
  if (containers.empty()) return CheckResult::Allow();
  return CheckResult::Forbid("procMount", ContainersPhrase(containers) +
                                              " must not set securityContext.procMount to " +
                                              JoinQuote(ToVector(types)));
}

std::vector<Check> BaselineChecks() {
  const Level b = Level::kBaseline;
  return {
      {"appArmorProfile", b, {{V(0), AppArmorProfile_1_0, {}}}},
      {"capabilities_baseline", b, {{V(0), CapabilitiesBaseline_1_0, {}}}},
      {"hostNamespaces", b, {{V(0), HostNamespaces_1_0, {}}}},
      {"hostPathVolumes", b, {{V(0), HostPathVolumes_1_0, {}}}},
      {"hostPorts", b, {{V(0), HostPorts_1_0, {}}}},
      {"hostProbesAndHostLifecycle", b, {{V(34), HostProbesAndHostLifecycle_1_34, {}}}},
      {"privileged", b, {{V(0), Privileged_1_0, {}}}},
      {"procMount", b, {{V(0), ProcMount_1_0, {}}, {V(35), ProcMount_1_35, {}}}},
      {"seLinuxOptions", b, {{V(0), SELinuxOptions_1_0, {}}, {V(31), SELinuxOptions_1_31, {}}}},
      {"seccompProfile_baseline",
       b,
       {{V(0), SeccompProfileBaseline_1_0, {}}, {V(19), SeccompProfileBaseline_1_19, {}}}},
      {"sysctls",
       b,
       {{V(0), Sysctls_1_0, {}},
        {V(27), Sysctls_1_27, {}},
        {V(29), Sysctls_1_29, {}},
        {V(32), Sysctls_1_32, {}},
        {V(37), Sysctls_1_37, {}}}},
      // KEP-5758 ulimits: a new check needs a new policy version, so namespaces pinned to an
      // older version keep admitting exactly what they admitted before. v1.37 is already taken
      // (its meaning is fixed by the sysctl additions), and the field is alpha in the same
      // cycle as KEP-5474's cgroupOptions (v1.38), so both arrive in v1.38.
      {"ulimits", b, {{V(38), Ulimits_1_38, {}}}},
      {"windowsHostProcess", b, {{V(0), WindowsHostProcess_1_0, {}}}},
  };
}

}  // namespace podlimits::admission::psa
