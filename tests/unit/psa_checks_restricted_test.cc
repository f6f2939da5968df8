// Every restricted check: allowed and forbidden inputs, exact reason/detail strings, version
// boundaries, the Windows exemptions (v1.25) and user-namespace relaxations (v1.35).
#include <gtest/gtest.h>

#include "psa_test_util.h"

namespace podlimits::admission::psa {
namespace {

using testing::CheckCase;
using testing::RunCheckCases;

TEST(PsaRestrictedChecksTest, AllowPrivilegeEscalation) {
  const std::string pod =
      "containers:\n- name: a\n  image: x\n"
      "- name: b\n  image: x\n  securityContext:\n    allowPrivilegeEscalation: true\n"
      "- name: c\n  image: x\n  securityContext:\n    allowPrivilegeEscalation: false\n"
      "- name: d\n  image: x\n  securityContext: {}\n";
  const std::string windows = "os:\n  name: windows\ncontainers:\n- name: a\n  image: x\n";
  RunCheckCases({
      {"not before v1.8", "allowPrivilegeEscalation", "restricted", "v1.7", pod, "", false},
      {"not at baseline", "allowPrivilegeEscalation", "baseline", "latest", pod, "", false},
      {"must be explicitly false", "allowPrivilegeEscalation", "restricted", "v1.8", pod, "", true,
       "allowPrivilegeEscalation != false",
       R"(containers "a", "b", "d" must set securityContext.allowPrivilegeEscalation=false)"},
      {"windows checked before v1.25", "allowPrivilegeEscalation", "restricted", "v1.24", windows,
       "", true, "allowPrivilegeEscalation != false",
       R"(container "a" must set securityContext.allowPrivilegeEscalation=false)"},
      {"windows exempt from v1.25", "allowPrivilegeEscalation", "restricted", "v1.25", windows},
  });
}

TEST(PsaRestrictedChecksTest, CapabilitiesRestricted) {
  const std::string pod =
      "containers:\n- name: a\n  image: x\n"
      "- name: b\n  image: x\n  securityContext:\n    capabilities:\n      drop: [all]\n"
      "- name: c\n  image: x\n  securityContext:\n    capabilities:\n      drop: [ALL]\n"
      "      add: [NET_BIND_SERVICE]\n"
      "- name: d\n  image: x\n  securityContext:\n    capabilities:\n      drop: [ALL]\n"
      "      add: [SYS_TIME, NET_RAW, SYS_TIME]\n";
  const std::string windows = "os:\n  name: windows\ncontainers:\n- name: a\n  image: x\n";
  RunCheckCases({
      {"not before v1.22", "capabilities_restricted", "restricted", "v1.21", pod, "", false},
      {"drop exactly ALL; add only NET_BIND_SERVICE", "capabilities_restricted", "restricted",
       "v1.22", pod, "", true, "unrestricted capabilities",
       R"(containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; container "d" must not include "NET_RAW", "SYS_TIME" in securityContext.capabilities.add)"},
      {"dropping every capability by name is not ALL", "capabilities_restricted", "restricted",
       "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    capabilities:\n"
       "      drop: [AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD,"
       " NET_BIND_SERVICE, NET_RAW, SETFCAP, SETGID, SETPCAP, SETUID, SYS_CHROOT]\n",
       "", true, "unrestricted capabilities",
       R"(container "a" must set securityContext.capabilities.drop=["ALL"])"},
      {"add only", "capabilities_restricted", "restricted", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    capabilities:\n"
       "      drop: [ALL]\n      add: [CHOWN]\n",
       "", true, "unrestricted capabilities",
       R"(container "a" must not include "CHOWN" in securityContext.capabilities.add)"},
      {"windows checked before v1.25", "capabilities_restricted", "restricted", "v1.24", windows,
       "", true, "unrestricted capabilities",
       R"(container "a" must set securityContext.capabilities.drop=["ALL"])"},
      {"windows exempt from v1.25", "capabilities_restricted", "restricted", "v1.25", windows},
  });
}

TEST(PsaRestrictedChecksTest, CgroupOptionsRestricted) {
  const std::string pod =
      "containers:\n"
      "- name: a\n  image: x\n  securityContext:\n    cgroupOptions:\n      mountMode: ReadOnly\n"
      "- name: b\n  image: x\n  securityContext:\n    cgroupOptions:\n      mountMode: Writable\n"
      "- name: c\n  image: x\n  securityContext:\n    cgroupOptions:\n      mountMode: Writable\n"
      "- name: d\n  image: x\n  securityContext:\n    cgroupOptions: {}\n";
  RunCheckCases({
      {"not before v1.38", "cgroupOptions_restricted", "restricted", "v1.37", pod, "", false},
      {"baseline admits writable cgroups", "cgroupOptions_restricted", "baseline", "latest", pod,
       "", false},
      {"Writable", "cgroupOptions_restricted", "restricted", "v1.38", pod, "", true,
       "cgroupOptions",
       R"(containers "b", "c" must not set securityContext.cgroupOptions.mountMode to "Writable")"},
      {"ReadOnly and unset", "cgroupOptions_restricted", "restricted", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    cgroupOptions:\n"
       "      mountMode: ReadOnly\n- name: b\n  image: x\n  securityContext:\n"
       "    cgroupOptions: {}\n- name: c\n  image: x\n"},
      {"init container", "cgroupOptions_restricted", "restricted", "latest",
       "initContainers:\n- name: i\n  image: x\n  securityContext:\n    cgroupOptions:\n"
       "      mountMode: Writable\ncontainers:\n- name: a\n  image: x\n",
       "", true, "cgroupOptions",
       R"(container "i" must not set securityContext.cgroupOptions.mountMode to "Writable")"},
  });
}

TEST(PsaRestrictedChecksTest, ProcMountRestricted) {
  const std::string userns =
      "hostUsers: false\ncontainers:\n- name: a\n  image: x\n  securityContext:\n"
      "    procMount: Unmasked\n- name: b\n  image: x\n  securityContext:\n"
      "    procMount: Default\n";
  RunCheckCases({
      {"not before v1.35", "procMount_restricted", "restricted", "v1.34", userns, "", false},
      {"no user-namespace relaxation", "procMount_restricted", "restricted", "v1.35", userns, "",
       true, "procMount", R"(container "a" must not set securityContext.procMount to "Unmasked")"},
      {"Default", "procMount_restricted", "restricted", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    procMount: Default\n"},
  });
}

TEST(PsaRestrictedChecksTest, RestrictedVolumes) {
  RunCheckCases({
      {"allowed volume types", "restrictedVolumes", "restricted", "v1.0",
       "containers:\n- name: a\n  image: x\nvolumes:\n"
       "- name: cm\n  configMap:\n    name: c\n"
       "- name: csi\n  csi:\n    driver: d\n"
       "- name: dapi\n  downwardAPI: {}\n"
       "- name: ed\n  emptyDir: {}\n"
       "- name: eph\n  ephemeral:\n    volumeClaimTemplate:\n      spec: {}\n"
       "- name: img\n  image:\n    reference: r\n"
       "- name: pvc\n  persistentVolumeClaim:\n    claimName: c\n"
       "- name: proj\n  projected:\n    sources: []\n"
       "- name: sec\n  secret:\n    secretName: s\n"},
      {"one", "restrictedVolumes", "restricted", "latest",
       "containers:\n- name: a\n  image: x\nvolumes:\n- name: h\n  hostPath:\n    path: /\n", "",
       true, "restricted volume types", R"(volume "h" uses restricted volume type "hostPath")"},
      {"several, types sorted", "restrictedVolumes", "restricted", "latest",
       "containers:\n- name: a\n  image: x\nvolumes:\n"
       "- name: nf\n  nfs:\n    server: s\n    path: /\n"
       "- name: ok\n  emptyDir: {}\n"
       "- name: g\n  gitRepo:\n    repository: r\n"
       "- name: h\n  hostPath:\n    path: /\n"
       "- name: h2\n  hostPath:\n    path: /x\n",
       "", true, "restricted volume types",
       R"(volumes "nf", "g", "h", "h2" use restricted volume types "gitRepo", "hostPath", "nfs")"},
      {"no source at all is unknown to the check (defaulting makes it emptyDir)",
       "restrictedVolumes", "restricted", "latest",
       "containers:\n- name: a\n  image: x\nvolumes:\n- name: volume0\n", "", true,
       "restricted volume types", R"(volume "volume0" uses restricted volume type "unknown")"},
      {"not at baseline", "restrictedVolumes", "baseline", "latest",
       "containers:\n- name: a\n  image: x\n", "", false},
  });
}

TEST(PsaRestrictedChecksTest, RunAsNonRoot) {
  const std::string userns = "hostUsers: false\ncontainers:\n- name: a\n  image: x\n";
  RunCheckCases({
      {"pod true covers containers", "runAsNonRoot", "restricted", "v1.0",
       "securityContext:\n  runAsNonRoot: true\ncontainers:\n- name: a\n  image: x\n"},
      {"every container true", "runAsNonRoot", "restricted", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    runAsNonRoot: true\n"},
      {"implicit", "runAsNonRoot", "restricted", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    runAsNonRoot: true\n"
       "- name: b\n  image: x\n- name: c\n  image: x\n  securityContext: {}\n",
       "", true, "runAsNonRoot != true",
       R"(pod or containers "b", "c" must set securityContext.runAsNonRoot=true)"},
      {"explicit false wins and is the only detail", "runAsNonRoot", "restricted", "latest",
       "securityContext:\n  runAsNonRoot: false\ncontainers:\n- name: a\n  image: x\n"
       "  securityContext:\n    runAsNonRoot: false\n- name: b\n  image: x\n",
       "", true, "runAsNonRoot != true",
       R"(pod and container "a" must not set securityContext.runAsNonRoot=false)"},
      {"container false under pod true", "runAsNonRoot", "restricted", "latest",
       "securityContext:\n  runAsNonRoot: true\ncontainers:\n- name: a\n  image: x\n"
       "  securityContext:\n    runAsNonRoot: false\n",
       "", true, "runAsNonRoot != true",
       R"(container "a" must not set securityContext.runAsNonRoot=false)"},
      {"user namespace before v1.35", "runAsNonRoot", "restricted", "v1.34", userns, "", true,
       "runAsNonRoot != true",
       R"(pod or container "a" must set securityContext.runAsNonRoot=true)"},
      {"user namespace from v1.35", "runAsNonRoot", "restricted", "v1.35", userns},
      {"windows pods are still checked", "runAsNonRoot", "restricted", "latest",
       "os:\n  name: windows\ncontainers:\n- name: a\n  image: x\n", "", true,
       "runAsNonRoot != true",
       R"(pod or container "a" must set securityContext.runAsNonRoot=true)"},
  });
}

TEST(PsaRestrictedChecksTest, RunAsUser) {
  const std::string root =
      "securityContext:\n  runAsUser: 0\ncontainers:\n- name: a\n  image: x\n"
      "  securityContext:\n    runAsUser: 0\n- name: b\n  image: x\n  securityContext:\n"
      "    runAsUser: 1000\n";
  const std::string userns =
      "hostUsers: false\nsecurityContext:\n  runAsUser: 0\ncontainers:\n- name: a\n  image: x\n";
  RunCheckCases({
      {"not before v1.23", "runAsUser", "restricted", "v1.22", root, "", false},
      {"pod and container", "runAsUser", "restricted", "v1.23", root, "", true, "runAsUser=0",
       R"(pod and container "a" must not set runAsUser=0)"},
      {"non-zero", "runAsUser", "restricted", "latest",
       "securityContext:\n  runAsUser: 1\ncontainers:\n- name: a\n  image: x\n"},
      {"user namespace before v1.35", "runAsUser", "restricted", "v1.34", userns, "", true,
       "runAsUser=0", "pod must not set runAsUser=0"},
      {"user namespace from v1.35", "runAsUser", "restricted", "v1.35", userns},
  });
}

TEST(PsaRestrictedChecksTest, SeccompProfileRestricted) {
  const std::string windows = "os:\n  name: windows\ncontainers:\n- name: a\n  image: x\n";
  RunCheckCases({
      {"not before v1.19", "seccompProfile_restricted", "restricted", "v1.18", windows, "", false},
      {"pod-level profile covers containers", "seccompProfile_restricted", "restricted", "v1.19",
       "securityContext:\n  seccompProfile:\n    type: Localhost\n    localhostProfile: p\n"
       "containers:\n- name: a\n  image: x\n"},
      {"implicit", "seccompProfile_restricted", "restricted", "latest",
       "containers:\n- name: a\n  image: x\n  securityContext:\n    seccompProfile:\n"
       "      type: RuntimeDefault\n- name: b\n  image: x\n",
       "", true, "seccompProfile",
       R"(pod or container "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")"},
      {"explicit bad values win", "seccompProfile_restricted", "restricted", "latest",
       "securityContext:\n  seccompProfile:\n    type: Unconfined\n"
       "containers:\n- name: a\n  image: x\n  securityContext:\n    seccompProfile:\n"
       "      type: Localhost\n- name: b\n  image: x\n  securityContext:\n"
       "    seccompProfile:\n      type: Unconfined\n- name: c\n  image: x\n",
       "", true, "seccompProfile",
       R"(pod and container "b" must not set securityContext.seccompProfile.type to "Unconfined")"},
      {"windows checked before v1.25", "seccompProfile_restricted", "restricted", "v1.24", windows,
       "", true, "seccompProfile",
       R"(pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")"},
      {"windows exempt from v1.25", "seccompProfile_restricted", "restricted", "v1.25", windows},
  });
}

}  // namespace
}  // namespace podlimits::admission::psa
