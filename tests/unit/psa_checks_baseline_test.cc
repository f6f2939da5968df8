// Every baseline check: allowed and forbidden inputs, exact reason/detail strings, and the
// policy versions at which each check (or each variant of it) takes effect.
#include <gtest/gtest.h>

#include "psa_test_util.h"

namespace podlimits::admission::psa {
namespace {

using testing::CheckCase;
using testing::RunCheckCases;

TEST(PsaBaselineChecksTest, AppArmorProfile) {
  RunCheckCases({
      {"nothing set", "appArmorProfile", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n"},
      {"allowed types and annotation values", "appArmorProfile", "baseline", "v1.0",
       "securityContext:\n  appArmorProfile:\n    type: RuntimeDefault\n"
       "containers:\n- name: a\n  image: x\n  securityContext:\n    appArmorProfile:\n"
       "      type: Localhost\n      localhostProfile: p\n",
       "annotations:\n"
       "  container.apparmor.security.beta.kubernetes.io/a: runtime/default\n"
       "  container.apparmor.security.beta.kubernetes.io/b: localhost/custom\n"
       "  container.apparmor.security.beta.kubernetes.io/c: \"\"\n"},
      {"pod field", "appArmorProfile", "baseline", "latest",
       "securityContext:\n  appArmorProfile:\n    type: Unconfined\n"
       "containers:\n- name: a\n  image: x\n",
       "", true, "forbidden AppArmor profile",
       R"(pod must not set AppArmor profile type to "Unconfined")"},
      {"pod and containers share one value", "appArmorProfile", "baseline", "latest",
       "securityContext:\n  appArmorProfile:\n    type: Unconfined\n"
       "containers:\n"
       "- name: a\n  image: x\n  securityContext:\n    appArmorProfile:\n      type: Unconfined\n"
       "- name: b\n  image: x\n  securityContext:\n    appArmorProfile:\n      type: Unconfined\n",
       "", true, "forbidden AppArmor profile",
       R"(pod and containers "a", "b" must not set AppArmor profile type to "Unconfined")"},
      {"legacy annotation", "appArmorProfile", "baseline", "latest",
       "containers:\n- name: e\n  image: x\n",
       "annotations:\n  container.apparmor.security.beta.kubernetes.io/e: unconfined\n", true,
       "forbidden AppArmor profile",
       R"(annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/e="unconfined"")"},
      {"container field and annotations, values counted together", "appArmorProfile", "baseline",
       "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    appArmorProfile:\n"
       "      type: Unconfined\n",
       "annotations:\n"
       "  container.apparmor.security.beta.kubernetes.io/b: foo\n"
       "  container.apparmor.security.beta.kubernetes.io/a: unconfined\n",
       true, "forbidden AppArmor profiles",
       R"(container "a" and annotations must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/a="unconfined"", "container.apparmor.security.beta.kubernetes.io/b="foo"")"},
      {"upstream's annotation vector", "appArmorProfile", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n",
       "annotations:\n"
       "  container.apparmor.security.beta.kubernetes.io/: bogus\n"
       "  container.apparmor.security.beta.kubernetes.io/a: \"\"\n"
       "  container.apparmor.security.beta.kubernetes.io/b: runtime/default\n"
       "  container.apparmor.security.beta.kubernetes.io/c: localhost/\n"
       "  container.apparmor.security.beta.kubernetes.io/d: localhost/foo\n"
       "  container.apparmor.security.beta.kubernetes.io/e: unconfined\n"
       "  container.apparmor.security.beta.kubernetes.io/f: unknown\n"
       "  env: prod\n",
       true, "forbidden AppArmor profiles",
       R"(annotations must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/="bogus"", "container.apparmor.security.beta.kubernetes.io/e="unconfined"", "container.apparmor.security.beta.kubernetes.io/f="unknown"")"},
      {"annotations sort as key=value strings, not by key", "appArmorProfile", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n- name: a1\n  image: x\n",
       "annotations:\n"
       "  container.apparmor.security.beta.kubernetes.io/a: x\n"
       "  container.apparmor.security.beta.kubernetes.io/a1: yy\n",
       true, "forbidden AppArmor profiles",
       R"(annotations must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/a1="yy"", "container.apparmor.security.beta.kubernetes.io/a="x"")"},
      {"annotation with any suffix, even none", "appArmorProfile", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n",
       "annotations:\n  container.apparmor.security.beta.kubernetes.io/: \"un\\\"confined\"\n",
       true, "forbidden AppArmor profile",
       R"(annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/="un\"confined"")"},
  });
}

TEST(PsaBaselineChecksTest, CapabilitiesBaseline) {
  RunCheckCases({
      {"every default capability", "capabilities_baseline", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    capabilities:\n"
       "      add: [AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD,"
       " NET_BIND_SERVICE, SETFCAP, SETGID, SETPCAP, SETUID, SYS_CHROOT]\n"
       "      drop: [NET_RAW]\n"},
      {"exact, case-sensitive, no CAP_ stripping; init containers first", "capabilities_baseline",
       "baseline", "v1.0",
       "initContainers:\n- name: b\n  image: x\n  securityContext:\n    capabilities:\n"
       "      add: [chown, CAP_CHOWN]\n"
       "containers:\n- name: a\n  image: x\n  securityContext:\n    capabilities:\n"
       "      add: [SYS_ADMIN, NET_RAW, CHOWN, NET_RAW]\n"
       "- name: c\n  image: x\n  securityContext:\n    capabilities:\n      add: [KILL]\n",
       "", true, "non-default capabilities",
       R"(containers "b", "a" must not include "CAP_CHOWN", "NET_RAW", "SYS_ADMIN", "chown" in securityContext.capabilities.add)"},
      {"runs at restricted before capabilities_restricted exists", "capabilities_baseline",
       "restricted", "v1.21",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    capabilities:\n"
       "      add: [NET_RAW]\n",
       "", true, "non-default capabilities",
       R"(container "a" must not include "NET_RAW" in securityContext.capabilities.add)"},
      {"overridden at restricted from v1.22", "capabilities_baseline", "restricted", "v1.22",
       "containers:\n- name: a\n  image: x\n", "", false},
  });
}

TEST(PsaBaselineChecksTest, HostNamespaces) {
  RunCheckCases({
      {"explicit false", "hostNamespaces", "baseline", "latest",
       "hostNetwork: false\nhostPID: false\nhostIPC: false\n"
       "containers:\n- name: a\n  image: x\n"},
      {"all three, fixed order", "hostNamespaces", "baseline", "v1.0",
       "hostIPC: true\nhostPID: true\nhostNetwork: true\ncontainers:\n- name: a\n  image: x\n", "",
       true, "host namespaces", "hostNetwork=true, hostPID=true, hostIPC=true"},
      {"one", "hostNamespaces", "baseline", "latest",
       "hostIPC: true\ncontainers:\n- name: a\n  image: x\n", "", true, "host namespaces",
       "hostIPC=true"},
  });
}

TEST(PsaBaselineChecksTest, HostPathVolumes) {
  RunCheckCases({
      {"no hostPath", "hostPathVolumes", "baseline", "latest",
       "containers:\n- name: a\n  image: x\nvolumes:\n- name: v\n  emptyDir: {}\n"},
      {"one", "hostPathVolumes", "baseline", "latest",
       "containers:\n- name: a\n  image: x\nvolumes:\n- name: host-root\n  hostPath:\n"
       "    path: /\n",
       "", true, "hostPath volumes", R"(volume "host-root")"},
      {"several, in spec order", "hostPathVolumes", "baseline", "v1.0",
       "containers:\n- name: a\n  image: x\nvolumes:\n"
       "- name: c\n  hostPath:\n    path: /c\n- name: b\n  emptyDir: {}\n"
       "- hostPath:\n    path: /a\n  name: a\n",
       "", true, "hostPath volumes", R"(volumes "c", "a")"},
      {"overridden by restrictedVolumes at restricted", "hostPathVolumes", "restricted", "v1.0",
       "containers:\n- name: a\n  image: x\n", "", false},
  });
}

TEST(PsaBaselineChecksTest, HostPorts) {
  RunCheckCases({
      {"zero is unset", "hostPorts", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  ports:\n  - containerPort: 80\n    hostPort: 0\n"},
      {"one", "hostPorts", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  ports:\n  - containerPort: 80\n"
       "    hostPort: 8080\n",
       "", true, "hostPort", R"(container "a" uses hostPort 8080)"},
      {"distinct ports sorted as strings, unquoted", "hostPorts", "baseline", "v1.0",
       "containers:\n"
       "- name: a\n  image: x\n  ports:\n  - containerPort: 1\n    hostPort: 9000\n"
       "  - containerPort: 2\n    hostPort: 80\n"
       "- name: b\n  image: x\n  ports:\n  - containerPort: 1\n    hostPort: 10000\n"
       "  - containerPort: 2\n    hostPort: 80\n"
       "- name: c\n  image: x\n  ports:\n  - containerPort: 3\n",
       "", true, "hostPort", R"(containers "a", "b" use hostPorts 10000, 80, 9000)"},
  });
}

TEST(PsaBaselineChecksTest, HostProbesAndHostLifecycle) {
  const std::string probes =
      "containers:\n"
      "- name: b\n  image: x\n  lifecycle:\n    preStop:\n      tcpSocket:\n"
      "        host: example.com\n        port: 80\n"
      "- name: a\n  image: x\n  livenessProbe:\n    httpGet:\n      host: 10.0.0.1\n"
      "      port: 80\n  readinessProbe:\n    tcpSocket:\n      host: 10.0.0.1\n"
      "      port: 81\n";
  RunCheckCases({
      {"not before v1.34", "hostProbesAndHostLifecycle", "baseline", "v1.33", probes, "", false},
      {"names and hosts sorted and distinct", "hostProbesAndHostLifecycle", "baseline", "v1.34",
       probes, "", true, "probe or lifecycle host",
       R"(containers "a", "b" use probe or lifecycle hosts "10.0.0.1", "example.com")"},
      {"one container, one host", "hostProbesAndHostLifecycle", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  startupProbe:\n    httpGet:\n"
       "      host: h\n      port: 80\n  lifecycle:\n    postStart:\n      httpGet:\n"
       "        host: h\n        port: 80\n",
       "", true, "probe or lifecycle host", R"(container "a" uses probe or lifecycle host "h")"},
      {"empty host is unset", "hostProbesAndHostLifecycle", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  livenessProbe:\n    httpGet:\n"
       "      host: \"\"\n      port: 80\n"},
  });
}

TEST(PsaBaselineChecksTest, Privileged) {
  RunCheckCases({
      {"false", "privileged", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    privileged: false\n"},
      {"init, regular and ephemeral containers in visit order", "privileged", "baseline", "v1.0",
       "ephemeralContainers:\n- name: e\n  image: x\n  securityContext:\n    privileged: true\n"
       "containers:\n- name: c\n  image: x\n  securityContext:\n    privileged: true\n"
       "- name: ok\n  image: x\n"
       "initContainers:\n- name: i\n  image: x\n  securityContext:\n    privileged: true\n",
       "", true, "privileged",
       R"(containers "i", "c", "e" must not set securityContext.privileged=true)"},
  });
}

TEST(PsaBaselineChecksTest, ProcMount) {
  const std::string unmasked_userns =
      "hostUsers: false\ncontainers:\n- name: a\n  image: x\n  securityContext:\n"
      "    procMount: Unmasked\n";
  RunCheckCases({
      {"Default", "procMount", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    procMount: Default\n"},
      {"Unmasked", "procMount", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    procMount: Unmasked\n"
       "- name: b\n  image: x\n  securityContext:\n    procMount: Default\n",
       "", true, "procMount",
       R"(container "a" must not set securityContext.procMount to "Unmasked")"},
      {"user namespace not relaxed before v1.35", "procMount", "baseline", "v1.34", unmasked_userns,
       "", true, "procMount",
       R"(container "a" must not set securityContext.procMount to "Unmasked")"},
      {"user namespace relaxed from v1.35", "procMount", "baseline", "v1.35", unmasked_userns},
      {"overridden by procMount_restricted at restricted v1.35", "procMount", "restricted", "v1.35",
       unmasked_userns, "", false},
      {"still runs at restricted v1.34", "procMount", "restricted", "v1.34", unmasked_userns, "",
       true, "procMount", R"(container "a" must not set securityContext.procMount to "Unmasked")"},
  });
}

TEST(PsaBaselineChecksTest, SELinuxOptions) {
  const std::string engine =
      "containers:\n- name: a\n  image: x\n  securityContext:\n    seLinuxOptions:\n"
      "      type: container_engine_t\n";
  RunCheckCases({
      {"allowed types, level is not checked", "seLinuxOptions", "baseline", "v1.0",
       "securityContext:\n  seLinuxOptions:\n    type: container_t\n    level: s0:c1\n"
       "containers:\n- name: a\n  image: x\n  securityContext:\n    seLinuxOptions:\n"
       "      type: container_init_t\n- name: b\n  image: x\n  securityContext:\n"
       "    seLinuxOptions:\n      type: container_kvm_t\n      user: \"\"\n"},
      {"pod type and container user", "seLinuxOptions", "baseline", "latest",
       "securityContext:\n  seLinuxOptions:\n    type: spc_t\n"
       "containers:\n- name: a\n  image: x\n  securityContext:\n    seLinuxOptions:\n"
       "      user: system_u\n",
       "", true, "seLinuxOptions",
       R"(pod and container "a" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set)"},
      {"role alone is reported", "seLinuxOptions", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    seLinuxOptions:\n"
       "      role: sysadm_r\n",
       "", true, "seLinuxOptions",
       R"(container "a" set forbidden securityContext.seLinuxOptions: role may not be set)"},
      {"several types, user and role", "seLinuxOptions", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    seLinuxOptions:\n"
       "      type: foo_t\n      role: r\n- name: b\n  image: x\n  securityContext:\n"
       "    seLinuxOptions:\n      type: bar_t\n      user: u\n",
       "", true, "seLinuxOptions",
       R"(containers "a", "b" set forbidden securityContext.seLinuxOptions: types "bar_t", "foo_t"; user may not be set; role may not be set)"},
      {"container_engine_t before v1.31", "seLinuxOptions", "baseline", "v1.30", engine, "", true,
       "seLinuxOptions",
       R"(container "a" set forbidden securityContext.seLinuxOptions: type "container_engine_t")"},
      {"container_engine_t from v1.31", "seLinuxOptions", "baseline", "v1.31", engine},
  });
}

TEST(PsaBaselineChecksTest, SeccompProfileBaseline) {
  const std::string annotated_spec = "containers:\n- name: a\n  image: x\n- name: b\n  image: x\n";
  const std::string annotations =
      "annotations:\n"
      "  seccomp.security.alpha.kubernetes.io/pod: unconfined\n"
      "  container.seccomp.security.alpha.kubernetes.io/a: foo\n"
      "  container.seccomp.security.alpha.kubernetes.io/b: docker/default\n"
      "  container.seccomp.security.alpha.kubernetes.io/zz: unconfined\n";
  const std::string fields =
      "securityContext:\n  seccompProfile:\n    type: Unconfined\n"
      "containers:\n- name: a\n  image: x\n  securityContext:\n    seccompProfile:\n"
      "      type: Unconfined\n- name: b\n  image: x\n  securityContext:\n"
      "    seccompProfile:\n      type: RuntimeDefault\n";
  RunCheckCases({
      {"v1.0 annotations; only this pod's containers count", "seccompProfile_baseline", "baseline",
       "v1.18", annotated_spec, annotations, true, "seccompProfile",
       R"(forbidden annotations container.seccomp.security.alpha.kubernetes.io/a="foo", seccomp.security.alpha.kubernetes.io/pod="unconfined")"},
      {"v1.0 annotation values", "seccompProfile_baseline", "baseline", "v1.0", annotated_spec,
       "annotations:\n  seccomp.security.alpha.kubernetes.io/pod: runtime/default\n"
       "  container.seccomp.security.alpha.kubernetes.io/a: localhost/p.json\n"},
      {"v1.0 ignores the fields", "seccompProfile_baseline", "baseline", "v1.18", fields},
      {"v1.19 checks the fields", "seccompProfile_baseline", "baseline", "v1.19", fields, "", true,
       "seccompProfile",
       R"(pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined")"},
      {"v1.19 ignores the annotations", "seccompProfile_baseline", "baseline", "latest",
       annotated_spec, annotations},
      {"overridden at restricted from v1.19", "seccompProfile_baseline", "restricted", "v1.19",
       fields, "", false},
      {"annotations still checked at restricted v1.18", "seccompProfile_baseline", "restricted",
       "v1.18", annotated_spec, "annotations:\n  seccomp.security.alpha.kubernetes.io/pod: x\n",
       true, "seccompProfile",
       R"(forbidden annotation seccomp.security.alpha.kubernetes.io/pod="x")"},
  });
}

std::string SysctlPod(std::initializer_list<const char*> names) {
  std::string s = "securityContext:\n  sysctls:\n";
  for (const char* n : names) s += std::string("  - name: ") + n + "\n    value: \"1\"\n";
  return s + "containers:\n- name: a\n  image: x\n";
}

TEST(PsaBaselineChecksTest, Sysctls) {
  RunCheckCases({
      {"v1.0 safe set", "sysctls", "baseline", "v1.0",
       SysctlPod({"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
                  "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
                  "net.ipv4.ip_unprivileged_port_start"})},
      {"spec order, duplicates kept, unquoted", "sysctls", "baseline", "latest",
       SysctlPod(
           {"kernel.msgmax", "net.ipv4.tcp_syncookies", "net.ipv4.ip_forward", "kernel.msgmax"}),
       "", true, "forbidden sysctls", "kernel.msgmax, net.ipv4.ip_forward, kernel.msgmax"},
      {"ip_local_reserved_ports before v1.27", "sysctls", "baseline", "v1.26",
       SysctlPod({"net.ipv4.ip_local_reserved_ports"}), "", true, "forbidden sysctls",
       "net.ipv4.ip_local_reserved_ports"},
      {"ip_local_reserved_ports from v1.27", "sysctls", "baseline", "v1.27",
       SysctlPod({"net.ipv4.ip_local_reserved_ports"})},
      {"keepalive and fin_timeout before v1.29", "sysctls", "baseline", "v1.28",
       SysctlPod({"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                  "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"}),
       "", true, "forbidden sysctls",
       "net.ipv4.tcp_keepalive_time, net.ipv4.tcp_fin_timeout, net.ipv4.tcp_keepalive_intvl, "
       "net.ipv4.tcp_keepalive_probes"},
      {"keepalive and fin_timeout from v1.29", "sysctls", "baseline", "v1.29",
       SysctlPod({"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                  "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"})},
      {"tcp_rmem/wmem before v1.32", "sysctls", "baseline", "v1.31",
       SysctlPod({"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}), "", true, "forbidden sysctls",
       "net.ipv4.tcp_rmem, net.ipv4.tcp_wmem"},
      {"tcp_rmem/wmem from v1.32", "sysctls", "baseline", "v1.32",
       SysctlPod({"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"})},
      {"v1.37 additions before v1.37", "sysctls", "baseline", "v1.36",
       SysctlPod({"net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"}), "", true,
       "forbidden sysctls", "net.ipv4.tcp_slow_start_after_idle, net.ipv4.tcp_notsent_lowat"},
      {"v1.37 additions at latest", "sysctls", "baseline", "latest",
       SysctlPod({"net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"})},
  });
}

TEST(PsaBaselineChecksTest, Ulimits) {
  const std::string ulimits =
      "initContainers:\n- name: i\n  image: x\n"
      "containers:\n- name: a\n  image: x\n"
      "- name: b\n  image: x\n  securityContext:\n    ulimits:\n    - name: nofile\n"
      "      soft: 1024\n      hard: 2048\n"
      "- name: c\n  image: x\n  securityContext:\n    ulimits:\n    - name: memlock\n"
      "      soft: 1024\n      hard: 2048\n";
  RunCheckCases({
      {"not before v1.38", "ulimits", "baseline", "v1.37", ulimits, "", false},
      {"v1.38", "ulimits", "baseline", "v1.38", ulimits, "", true, "ulimits",
       R"(containers "b", "c" must not set securityContext.ulimits)"},
      {"latest, also at restricted", "ulimits", "restricted", "latest", ulimits, "", true,
       "ulimits", R"(containers "b", "c" must not set securityContext.ulimits)"},
      {"an empty list is still the field", "ulimits", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    ulimits: []\n", "", true,
       "ulimits", R"(container "a" must not set securityContext.ulimits)"},
      {"init and ephemeral containers too", "ulimits", "baseline", "latest",
       "initContainers:\n- name: i\n  image: x\n  securityContext:\n    ulimits:\n"
       "    - name: core\n      soft: 0\n      hard: 0\n"
       "containers:\n- name: a\n  image: x\n"
       "ephemeralContainers:\n- name: e\n  image: x\n  securityContext:\n    ulimits:\n"
       "    - name: nofile\n      soft: -1\n      hard: -1\n",
       "", true, "ulimits", R"(containers "i", "e" must not set securityContext.ulimits)"},
      {"unset", "ulimits", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    privileged: false\n"},
  });
}

TEST(PsaBaselineChecksTest, WindowsHostProcess) {
  RunCheckCases({
      {"false", "windowsHostProcess", "baseline", "latest",
       "securityContext:\n  windowsOptions:\n    hostProcess: false\n"
       "containers:\n- name: a\n  image: x\n"},
      {"pod and container", "windowsHostProcess", "baseline", "v1.0",
       "securityContext:\n  windowsOptions:\n    hostProcess: true\n"
       "containers:\n- name: a\n  image: x\n  securityContext:\n    windowsOptions:\n"
       "      hostProcess: true\n- name: b\n  image: x\n",
       "", true, "hostProcess",
       R"(pod and container "a" must not set securityContext.windowsOptions.hostProcess=true)"},
      {"containers only", "windowsHostProcess", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    windowsOptions:\n"
       "      hostProcess: true\n- name: b\n  image: x\n  securityContext:\n"
       "    windowsOptions:\n      hostProcess: true\n",
       "", true, "hostProcess",
       R"(containers "a", "b" must not set securityContext.windowsOptions.hostProcess=true)"},
  });
}

}  // namespace
}  // namespace podlimits::admission::psa
