// Namespace CREATE/UPDATE through PodSecurity: label validation (422 Invalid) and the
// exempt-namespace warning.
#include <gtest/gtest.h>

#include "admission/pod_security.h"
#include "pod_security_test_util.h"

namespace podlimits::admission::psa {
namespace {

using namespace testing;  // NOLINT: the shared table vocabulary

TEST(PodSecurityTest, NamespaceLabels) {
  PodSecurity psa(Config(PrivilegedPolicy(), {{}, {"kube-system"}, {}}));
  struct NsCase {
    std::string name;
    api::Namespace ns;
    std::optional<api::Namespace> old;
    std::optional<std::string> invalid;
    std::vector<std::string> warnings;
  };
  const std::vector<NsCase> cases = {
      {"valid create",
       Namespace("test", {{kEnforce, "restricted"}, {kEnforceVersion, "v1.30"}}),
       std::nullopt,
       std::nullopt,
       {}},
      {"invalid level on create",
       Namespace("test", {{kEnforce, "foo"}}),
       std::nullopt,
       R"(Namespace "test" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted)",
       {}},
      {"several errors on create",
       Namespace("test", {{kEnforce, "foo"}, {kWarnVersion, "1.25"}}),
       std::nullopt,
       R"(Namespace "test" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.25": must be "latest" or "v1.x"])",
       {}},
      {"unchanged invalid labels do not block an update",
       Namespace("test", {{kEnforce, "foo"}}),
       Namespace("test", {{kEnforce, "foo"}}),
       std::nullopt,
       {}},
      {"newly invalid labels block an update",
       Namespace("test", {{kEnforce, "foo"}}),
       Namespace("test", {{kEnforce, "baseline"}}),
       R"(Namespace "test" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted)",
       {}},
      {"exempt namespace created with a policy",
       Namespace("kube-system", {{kEnforce, "restricted"}}),
       std::nullopt,
       std::nullopt,
       {R"(namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored)"}},
      {"exempt namespace, every mode listed",
       Namespace("kube-system", {{kEnforce, "baseline"},
                                 {kAuditVersion, "v1.25"},
                                 {kAudit, "restricted"},
                                 {kWarn, "restricted"}}),
       std::nullopt,
       std::nullopt,
       {R"(namespace "kube-system" is exempt from Pod Security, and the policy (enforce=baseline:latest, audit=restricted:v1.25, warn=restricted:latest) will be ignored)"}},
      {"exempt namespace with a privileged policy",
       Namespace("kube-system", {{kEnforce, "privileged"}}),
       std::nullopt,
       std::nullopt,
       {}},
      {"exempt namespace tightened on update",
       Namespace("kube-system", {{kEnforce, "restricted"}}),
       Namespace("kube-system", {{kEnforce, "baseline"}}),
       std::nullopt,
       {R"(namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored)"}},
      {"exempt namespace relaxed on update",
       Namespace("kube-system", {{kEnforce, "baseline"}}),
       Namespace("kube-system", {{kEnforce, "restricted"}}),
       std::nullopt,
       {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto d = psa.ValidateNamespace(c.ns, c.old ? &*c.old : nullptr);
    EXPECT_EQ(d.invalid_message, c.invalid);
    EXPECT_EQ(d.warnings, c.warnings);
  }
}

}  // namespace
}  // namespace podlimits::admission::psa

namespace podlimits::admission::psa {
namespace {

using namespace testing;  // NOLINT: the shared table vocabulary

// Tightening enforce dry-runs the namespace's pods: EvaluatePodsInNamespace's warnings.
TEST(PodSecurityTest, TighteningEnforceWarnsAboutExistingPods) {
  PodSecurity psa(Config(PrivilegedPolicy(), {{}, {"kube-system"}, {}}));
  const std::string root = "containers:\n- name: c\n  image: busybox\n";
  const std::string restricted =
      "securityContext:\n  runAsNonRoot: true\n  seccompProfile: {type: RuntimeDefault}\n"
      "containers:\n- name: c\n  image: busybox\n  securityContext:\n"
      "    allowPrivilegeEscalation: false\n    capabilities: {drop: [ALL]}\n";
  std::vector<api::Pod> pods;
  for (const char* name : {"b", "a", "c"}) pods.push_back(DecodePod(PodYaml(root, "", name)).pod);
  pods.push_back(DecodePod(PodYaml(restricted)).pod);
  const api::Namespace before = Namespace("team", {});
  auto d = psa.ValidateNamespace(Namespace("team", {{kEnforce, "restricted"}}), &before, &pods);
  ASSERT_EQ(d.warnings.size(), 2u);
  EXPECT_EQ(d.warnings[0],
            R"(existing pods in namespace "team" violate the new PodSecurity enforce level "restricted:latest")");
  EXPECT_EQ(d.warnings[1],
            "a (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, "
            "runAsNonRoot != true, seccompProfile");
  // Relaxing, or an exempt namespace, evaluates nothing.
  const api::Namespace strict = Namespace("team", {{kEnforce, "restricted"}});
  EXPECT_TRUE(psa.ValidateNamespace(Namespace("team", {{kEnforce, "baseline"}}), &strict, &pods)
                  .warnings.empty());
  const api::Namespace system_before = Namespace("kube-system", {});
  auto exempt = psa.ValidateNamespace(Namespace("kube-system", {{kEnforce, "restricted"}}),
                                      &system_before, &pods);
  for (const auto& w : exempt.warnings) EXPECT_EQ(w.find("existing pods"), std::string::npos) << w;
}

}  // namespace
}  // namespace podlimits::admission::psa
