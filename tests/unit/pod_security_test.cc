// PodSecurity admission end to end: namespace labels and configured defaults pick the modes,
// exemptions short-circuit, and the Status.message, warnings and audit annotations are the
// apiserver's, byte for byte.
#include "admission/pod_security.h"

#include <gtest/gtest.h>

#include "api/defaults.h"
#include "pod_security_test_util.h"

namespace podlimits::admission::psa {
namespace {

using namespace testing;  // NOLINT: the shared table vocabulary

TEST(PodSecurityTest, EnforceMessages) {
  RunCases({
      {"restricted:latest, the classic four",
       {{kEnforce, "restricted"}},
       PodYaml(kPlainSpec, "", "nginx"),
       "pods \"nginx\" is forbidden: violates PodSecurity \"restricted:latest\": " +
           std::string(kPlainRestrictedDetail),
       {},
       {{kEnforcePolicy, "restricted:latest"}}},
      {"baseline: several checks in ID order",
       {{kEnforce, "baseline"}},
       PodYaml("hostPID: true\ncontainers:\n- name: ubuntu\n  image: ubuntu\n"
               "  securityContext:\n    privileged: true\n",
               "", "hostpid"),
       R"(pods "hostpid" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostPID=true), privileged (container "ubuntu" must not set securityContext.privileged=true))",
       {},
       {{kEnforcePolicy, "baseline:latest"}}},
      {"baseline hostPath",
       {{kEnforce, "baseline"}},
       PodYaml("containers:\n- name: a\n  image: x\nvolumes:\n- name: host-root\n"
               "  hostPath:\n    path: /\n",
               "", "hostpath-pod-pss"),
       R"(pods "hostpath-pod-pss" is forbidden: violates PodSecurity "baseline:latest": hostPath volumes (volume "host-root"))",
       {},
       {{kEnforcePolicy, "baseline:latest"}}},
      {"restricted reports hostPath as a restricted volume type",
       {{kEnforce, "restricted"}},
       PodYaml(std::string(kRestrictedSpec) + "volumes:\n- name: host-root\n  hostPath:\n"
                                              "    path: /\n",
               "", "p"),
       R"(pods "p" is forbidden: violates PodSecurity "restricted:latest": restricted volume types (volume "host-root" uses restricted volume type "hostPath"))",
       {},
       {{kEnforcePolicy, "restricted:latest"}}},
      {"the label's version text is quoted, even when clamped",
       {{kEnforce, "baseline"}, {kEnforceVersion, "v1.99"}},
       PodYaml("hostNetwork: true\ncontainers:\n- name: a\n  image: x\n", "", "p"),
       R"(pods "p" is forbidden: violates PodSecurity "baseline:v1.99": host namespaces (hostNetwork=true))",
       {},
       {{kEnforcePolicy, "baseline:v1.99"}}},
      {"pinned version",
       {{kEnforce, "restricted"}, {kEnforceVersion, "v1.23"}},
       PodYaml(kPlainSpec, "", "nginx"),
       "pods \"nginx\" is forbidden: violates PodSecurity \"restricted:v1.23\": " +
           std::string(kPlainRestrictedDetail),
       {},
       {{kEnforcePolicy, "restricted:v1.23"}}},
      {"before allowPrivilegeEscalation and capabilities existed",
       {{kEnforce, "restricted"}, {kEnforceVersion, "v1.7"}},
       PodYaml(kPlainSpec, "", "nginx"),
       R"(pods "nginx" is forbidden: violates PodSecurity "restricted:v1.7": runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true))",
       {},
       {{kEnforcePolicy, "restricted:v1.7"}}},
      // Seen in the wild (kubectl output quoted in psa.md's sources).
      {"observed restricted:v1.32 message",
       {{kEnforce, "restricted"}, {kEnforceVersion, "v1.32"}},
       PodYaml("securityContext:\n  seLinuxOptions:\n    user: system_u\n    role: object_r\n"
               "  sysctls:\n  - name: net.core.somaxconn\n    value: \"1024\"\n"
               "  - name: kernel.msgmax\n    value: \"65536\"\n"
               "containers:\n- name: my-pod\n  image: busybox\n",
               "", "sysctlpod"),
       R"(pods "sysctlpod" is forbidden: violates PodSecurity "restricted:v1.32": seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: user may not be set; role may not be set), forbidden sysctls (net.core.somaxconn, kernel.msgmax), allowPrivilegeEscalation != false (container "my-pod" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "my-pod" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "my-pod" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "my-pod" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"))",
       {},
       {{kEnforcePolicy, "restricted:v1.32"}}},
      {"observed baseline:v1.23 message",
       {{kEnforce, "baseline"}, {kEnforceVersion, "v1.23"}},
       PodYaml("hostNetwork: true\ncontainers:\n- name: nginx\n  image: nginx\n", "",
               "nginx-hostnetwork-644cdd6598-7rb5m"),
       R"(pods "nginx-hostnetwork-644cdd6598-7rb5m" is forbidden: violates PodSecurity "baseline:v1.23": host namespaces (hostNetwork=true))",
       {},
       {{kEnforcePolicy, "baseline:v1.23"}}},
      // Validating admission runs after the registry generated the name (the chain does that
      // before calling PSA), so a generateName pod is named by its generated name.
      {"generated name",
       {{kEnforce, "baseline"}},
       "apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: web-\n  name: web-x7k2p\nspec:\n"
       "  hostIPC: true\n  containers:\n  - name: a\n    image: x\n",
       R"(pods "web-x7k2p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostIPC=true))",
       {},
       {{kEnforcePolicy, "baseline:latest"}}},
      {"compliant pod",
       {{kEnforce, "restricted"}},
       PodYaml(kRestrictedSpec),
       std::nullopt,
       {},
       {{kEnforcePolicy, "restricted:latest"}}},
  });
}

TEST(PodSecurityTest, FullOrdering) {
  auto pod = DecodePod(PodYaml(
      "securityContext:\n  sysctls:\n  - name: kernel.msgmax\n    value: \"1\"\n"
      "containers:\n- name: a\n  image: x\n  ports:\n  - containerPort: 80\n    hostPort: 80\n"
      "  securityContext:\n    seLinuxOptions:\n      type: spc_t\n    seccompProfile:\n"
      "      type: Unconfined\n    runAsUser: 0\n    capabilities:\n      add: [SYS_ADMIN]\n"
      "    allowPrivilegeEscalation: true\n    ulimits: []\n    cgroupOptions:\n"
      "      mountMode: Writable\n",
      "", "p"));
  PodSecurity psa;
  auto d = psa.Evaluate(Namespace("ns", {{kEnforce, "restricted"}}), pod.pod, pod.tree, "u");
  EXPECT_EQ(
      d.forbidden_message,
      R"(pods "p" is forbidden: violates PodSecurity "restricted:latest": hostPort (container "a" uses hostPort 80), seLinuxOptions (container "a" set forbidden securityContext.seLinuxOptions: type "spc_t"), forbidden sysctls (kernel.msgmax), ulimits (container "a" must not set securityContext.ulimits), allowPrivilegeEscalation != false (container "a" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"]; container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add), cgroupOptions (container "a" must not set securityContext.cgroupOptions.mountMode to "Writable"), runAsNonRoot != true (pod or container "a" must set securityContext.runAsNonRoot=true), runAsUser=0 (container "a" must not set runAsUser=0), seccompProfile (container "a" must not set securityContext.seccompProfile.type to "Unconfined"))");
}

TEST(PodSecurityTest, WarnAndAuditModes) {
  const std::string plain = PodYaml(kPlainSpec, "", "nginx");
  const std::string warn_restricted =
      "would violate PodSecurity \"restricted:latest\": " + std::string(kPlainRestrictedDetail);
  const std::string privileged_pod = PodYaml(
      "containers:\n- name: a\n  image: x\n  securityContext:\n    privileged: true\n", "", "p");
  RunCases({
      {"warn only",
       {{kWarn, "restricted"}},
       plain,
       std::nullopt,
       {warn_restricted},
       {{kEnforcePolicy, "privileged:latest"}}},
      {"audit only",
       {{kAudit, "restricted"}},
       plain,
       std::nullopt,
       {},
       {{kEnforcePolicy, "privileged:latest"}, {kAuditViolations, warn_restricted}}},
      {"warn and audit at different versions",
       {{kWarn, "restricted"},
        {kWarnVersion, "v1.7"},
        {kAudit, "baseline"},
        {kAuditVersion, "v1.0"}},
       privileged_pod,
       std::nullopt,
       {R"(would violate PodSecurity "restricted:v1.7": privileged (container "a" must not set securityContext.privileged=true), runAsNonRoot != true (pod or container "a" must set securityContext.runAsNonRoot=true))"},
       {{kEnforcePolicy, "privileged:latest"},
        {kAuditViolations,
         R"(would violate PodSecurity "baseline:v1.0": privileged (container "a" must not set securityContext.privileged=true))"}}},
      {"implicit warn follows enforce: nothing to warn below enforce",
       {{kEnforce, "baseline"}},
       plain,
       std::nullopt,
       {},
       {{kEnforcePolicy, "baseline:latest"}}},
      {"explicit stricter warn on an admitted pod",
       {{kEnforce, "baseline"}, {kWarn, "restricted"}},
       plain,
       std::nullopt,
       {warn_restricted},
       {{kEnforcePolicy, "baseline:latest"}}},
      {"no warnings on a rejected pod, audit still recorded",
       {{kEnforce, "baseline"}, {kWarn, "restricted"}, {kAudit, "restricted"}},
       privileged_pod,
       R"(pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "a" must not set securityContext.privileged=true))",
       {},
       {{kEnforcePolicy, "baseline:latest"},
        {kAuditViolations,
         R"(would violate PodSecurity "restricted:latest": privileged (container "a" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "a" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "a" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"))"}}},
      {"fully privileged namespace short-circuits",
       {{kEnforce, "privileged"}},
       privileged_pod,
       std::nullopt,
       {},
       {{kEnforcePolicy, "privileged:latest"}}},
      {"pinned privileged versions are still privileged:latest in the annotation",
       {{kEnforce, "privileged"}, {kEnforceVersion, "v1.20"}},
       privileged_pod,
       std::nullopt,
       {},
       {{kEnforcePolicy, "privileged:latest"}}},
  });
}

TEST(PodSecurityTest, ConfiguredDefaults) {
  Policy defaults{LVOf("baseline", "latest"), LVOf("restricted", "v1.30"),
                  LVOf("privileged", "latest")};
  const std::string host_net =
      PodYaml("hostNetwork: true\ncontainers:\n- name: a\n  image: x\n", "", "p");
  const std::string audit =
      R"(would violate PodSecurity "restricted:v1.30": host namespaces (hostNetwork=true), allowPrivilegeEscalation != false (container "a" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "a" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"))";
  RunCases({
      {"defaults apply to unlabeled namespaces",
       {},
       host_net,
       R"(pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true))",
       {},
       {{kEnforcePolicy, "baseline:latest"}, {kAuditViolations, audit}},
       "alice",
       Config(defaults)},
      {"labels override the defaults",
       {{kEnforce, "privileged"}},
       host_net,
       std::nullopt,
       {},
       {{kEnforcePolicy, "privileged:latest"}, {kAuditViolations, audit}},
       "alice",
       Config(defaults)},
  });
}

TEST(PodSecurityTest, InvalidNamespaceLabels) {
  const std::string plain = PodYaml(kPlainSpec, "", "nginx");
  RunCases({
      {"invalid enforce level fails closed to restricted",
       {{kEnforce, "strict"}},
       plain,
       "pods \"nginx\" is forbidden: violates PodSecurity \"restricted:latest\": " +
           std::string(kPlainRestrictedDetail),
       {},
       {{kEnforcePolicy, "restricted:latest"},
        {kError,
         R"(Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted)"}}},
      {"invalid warn fails open, and the privileged short-circuit is skipped",
       {{kWarn, "loud"}, {kAuditVersion, "v1"}},
       plain,
       std::nullopt,
       {},
       {{kEnforcePolicy, "privileged:latest"},
        {kError,
         R"(Failed to parse policy: [metadata.labels[pod-security.kubernetes.io/audit-version]: Invalid value: "v1": must be "latest" or "v1.x", metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "loud": must be one of privileged, baseline, restricted])"}}},
  });
}

TEST(PodSecurityTest, Exemptions) {
  PodSecurityExemptions ex{
      {"system:serviceaccount:kube-system:replicaset-controller"}, {"team-a"}, {"kata"}};
  PodSecurityExemptions users_only{{"admin"}, {}, {"kata"}};
  const std::string bad = PodYaml("hostPID: true\ncontainers:\n- name: a\n  image: x\n", "", "p");
  const std::string bad_kata = PodYaml(
      "runtimeClassName: kata\nhostPID: true\ncontainers:\n- name: a\n  image: x\n", "", "p");
  const Policy restricted{LVOf("restricted", "latest"), LVOf("restricted", "latest"),
                          LVOf("restricted", "latest")};
  const std::string detail =
      R"(host namespaces (hostPID=true), allowPrivilegeEscalation != false (container "a" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "a" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"))";
  RunCases({
      {"exempt namespace skips enforce, audit and warn",
       {},
       bad,
       std::nullopt,
       {},
       {{kExempt, "namespace"}},
       "alice",
       Config(restricted, ex)},
      {"namespace exemption is checked before the user's",
       {},
       bad,
       std::nullopt,
       {},
       {{kExempt, "namespace"}},
       "system:serviceaccount:kube-system:replicaset-controller",
       Config(restricted, ex)},
      {"exempt user",
       {},
       bad,
       std::nullopt,
       {},
       {{kExempt, "user"}},
       "admin",
       Config(restricted, users_only)},
      {"usernames match exactly",
       {},
       bad,
       R"(pods "p" is forbidden: violates PodSecurity "restricted:latest": )" + detail,
       {},
       {{kEnforcePolicy, "restricted:latest"},
        {kAuditViolations, R"(would violate PodSecurity "restricted:latest": )" + detail}},
       "Admin",
       Config(restricted, users_only)},
      {"exempt runtime class",
       {},
       bad_kata,
       std::nullopt,
       {},
       {{kExempt, "runtimeClass"}},
       "alice",
       Config(restricted, users_only)},
      {"a fully privileged namespace short-circuits before the runtime class",
       {{kEnforce, "privileged"}, {kAudit, "privileged"}, {kWarn, "privileged"}},
       bad_kata,
       std::nullopt,
       {},
       {{kEnforcePolicy, "privileged:latest"}},
       "alice",
       Config(restricted, users_only)},
  });
}

TEST(PodSecurityTest, RequestKinds) {
  PodSecurity psa;
  auto ns = Namespace("team-a", {{kEnforce, "baseline"}});
  auto pod = DecodePod(PodYaml("hostPID: true\ncontainers:\n- name: a\n  image: x\n", "", "p"));
  const std::string forbidden =
      R"(pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostPID=true))";

  for (std::string_view sub :
       {"exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status"}) {
    SCOPED_TRACE(sub);
    auto d = psa.Evaluate(ns, pod.pod, pod.tree, "alice", {Operation::kUpdate, sub, nullptr});
    EXPECT_TRUE(d.allowed());
    EXPECT_TRUE(d.audit_annotations.empty());
  }
  auto eph = psa.Evaluate(ns, pod.pod, pod.tree, "alice",
                          {Operation::kUpdate, "ephemeralcontainers", nullptr});
  EXPECT_EQ(eph.forbidden_message, forbidden);

  // An update that changes no container count or image is not re-evaluated.
  auto relabeled = DecodePod(PodYaml("hostPID: true\ncontainers:\n- name: a\n  image: x\n",
                                     "labels:\n  tier: web\n", "p"));
  auto same =
      psa.Evaluate(ns, relabeled.pod, relabeled.tree, "alice", {Operation::kUpdate, "", &pod.pod});
  EXPECT_TRUE(same.allowed());
  EXPECT_TRUE(same.audit_annotations.empty());

  struct Update {
    std::string name;
    std::string spec;
  };
  const std::vector<Update> significant = {
      {"image changed", "hostPID: true\ncontainers:\n- name: a\n  image: z\n"},
      {"container added",
       "hostPID: true\ncontainers:\n- name: a\n  image: x\n- name: b\n  image: x\n"},
      {"init container added",
       "hostPID: true\ninitContainers:\n- name: i\n  image: x\ncontainers:\n- name: a\n"
       "  image: x\n"},
      {"ephemeral container added",
       "hostPID: true\ncontainers:\n- name: a\n  image: x\nephemeralContainers:\n- name: dbg\n"
       "  image: busybox\n"},
  };
  for (const auto& u : significant) {
    SCOPED_TRACE(u.name);
    auto updated = DecodePod(PodYaml(u.spec, "", "p"));
    auto d =
        psa.Evaluate(ns, updated.pod, updated.tree, "alice", {Operation::kUpdate, "", &pod.pod});
    EXPECT_EQ(d.forbidden_message, forbidden);
  }
}

// The apiserver defaults the pod (and runs the pod strategy's PrepareForCreate) before PSA sees
// it; PSA gives the same answer whether or not that already happened.
TEST(PodSecurityTest, AppArmorAnnotationSyncOnlyOnCreate) {
  PodSecurity psa;
  auto ns = Namespace("ns", {{kEnforce, "baseline"}});
  auto pod = DecodePod(PodYaml(
      "containers:\n- name: e\n  image: x\n",
      "annotations:\n  container.apparmor.security.beta.kubernetes.io/e: unconfined\n", "p"));
  auto d = psa.Evaluate(ns, pod.pod, pod.tree, "u", {Operation::kUpdate, "", nullptr});
  EXPECT_EQ(
      d.forbidden_message,
      R"(pods "p" is forbidden: violates PodSecurity "baseline:latest": forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/e="unconfined""))");
}

TEST(PodSecurityTest, SeesTheDefaultedPod) {
  struct DefaultCase {
    std::string name;
    std::string level;
    std::string pod;
    std::optional<std::string> forbidden;
  };
  const std::vector<DefaultCase> cases = {
      {"a volume without a source is an emptyDir (restrictedvolumes0 fixture)", "restricted",
       PodYaml(std::string(kRestrictedSpec) + "volumes:\n- name: volume0\n", "", "p"),
       std::nullopt},
      {"hostNetwork copies containerPort into hostPort", "baseline",
       PodYaml("hostNetwork: true\ninitContainers:\n- name: i\n  image: x\n  ports:\n"
               "  - containerPort: 9090\ncontainers:\n- name: a\n  image: x\n  ports:\n"
               "  - containerPort: 8080\n",
               "", "p"),
       R"(pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), hostPort (containers "i", "a" use hostPorts 8080, 9090))"},
      {"an unconfined AppArmor annotation is also synced into the container's field", "baseline",
       PodYaml("containers:\n- name: e\n  image: x\n- name: f\n  image: x\n",
               "annotations:\n  container.apparmor.security.beta.kubernetes.io/e: unconfined\n"
               "  container.apparmor.security.beta.kubernetes.io/f: bogus\n",
               "p"),
       R"(pods "p" is forbidden: violates PodSecurity "baseline:latest": forbidden AppArmor profiles (container "e" and annotations must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/e="unconfined"", "container.apparmor.security.beta.kubernetes.io/f="bogus""))"},
      {"no sync when the container has a field or the pod profile is the same", "baseline",
       PodYaml("securityContext:\n  appArmorProfile:\n    type: Unconfined\n"
               "containers:\n- name: e\n  image: x\n- name: g\n  image: x\n"
               "  securityContext:\n    appArmorProfile:\n      type: RuntimeDefault\n",
               "annotations:\n  container.apparmor.security.beta.kubernetes.io/e: unconfined\n"
               "  container.apparmor.security.beta.kubernetes.io/g: unconfined\n",
               "p"),
       R"(pods "p" is forbidden: violates PodSecurity "baseline:latest": forbidden AppArmor profiles (pod and annotations must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/e="unconfined"", "container.apparmor.security.beta.kubernetes.io/g="unconfined""))"},
      {"no sync for Windows pods", "baseline",
       PodYaml("os:\n  name: windows\ncontainers:\n- name: e\n  image: x\n",
               "annotations:\n  container.apparmor.security.beta.kubernetes.io/e: unconfined\n",
               "p"),
       R"(pods "p" is forbidden: violates PodSecurity "baseline:latest": forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/e="unconfined""))"},
  };
  PodSecurity psa;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto ns = Namespace("ns", {{kEnforce, c.level}});
    auto raw = DecodePod(c.pod);
    EXPECT_EQ(psa.Evaluate(ns, raw.pod, raw.tree, "u").forbidden_message, c.forbidden);
    codec::Node tree = raw.tree;
    api::SetDefaultsPod(tree);
    api::Pod defaulted = api::ReadPod(tree);
    EXPECT_EQ(psa.Evaluate(ns, defaulted, tree, "u").forbidden_message, c.forbidden);
  }
}

}  // namespace
}  // namespace podlimits::admission::psa
