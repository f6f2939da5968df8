// The seeds' Pod Security requirements: KEP-5758 ulimits (Privileged only, policy v1.38),
// KEP-5474 writable cgroups (not at Restricted, policy v1.38), KEP-6063 pod pid limits (no
// Pod Security impact at any level).
#include <gtest/gtest.h>

#include "admission/pod_security.h"
#include "pod_security_test_util.h"

namespace podlimits::admission::psa {
namespace {

using namespace testing;  // NOLINT: the shared table vocabulary

// KEP-5758: ulimits are for Privileged only, from policy v1.38 (so also in latest).
TEST(PodSecurityTest, UlimitsSeed) {
  const std::string pod = PodYaml(std::string(kRestrictedSpec) +
                                      "    ulimits:\n    - name: nofile\n      soft: 1024\n"
                                      "      hard: 4096\n",
                                  "", "ulimit-pod");
  const std::string baseline_pod = PodYaml(
      "containers:\n- name: app\n  image: x\n  securityContext:\n    ulimits:\n"
      "    - name: nofile\n      soft: -1\n      hard: -1\n",
      "", "ulimit-pod");
  RunCases({
      {"restricted rejects",
       {{kEnforce, "restricted"}},
       pod,
       R"(pods "ulimit-pod" is forbidden: violates PodSecurity "restricted:latest": ulimits (container "app" must not set securityContext.ulimits))",
       {},
       {{kEnforcePolicy, "restricted:latest"}}},
      {"baseline rejects",
       {{kEnforce, "baseline"}},
       baseline_pod,
       R"(pods "ulimit-pod" is forbidden: violates PodSecurity "baseline:latest": ulimits (container "app" must not set securityContext.ulimits))",
       {},
       {{kEnforcePolicy, "baseline:latest"}}},
      {"baseline v1.38 rejects",
       {{kEnforce, "baseline"}, {kEnforceVersion, "v1.38"}},
       baseline_pod,
       R"(pods "ulimit-pod" is forbidden: violates PodSecurity "baseline:v1.38": ulimits (container "app" must not set securityContext.ulimits))",
       {},
       {{kEnforcePolicy, "baseline:v1.38"}}},
      {"namespaces pinned before v1.38 keep admitting it",
       {{kEnforce, "baseline"}, {kEnforceVersion, "v1.37"}},
       baseline_pod,
       std::nullopt,
       {},
       {{kEnforcePolicy, "baseline:v1.37"}}},
      {"privileged admits",
       {{kEnforce, "privileged"}},
       baseline_pod,
       std::nullopt,
       {},
       {{kEnforcePolicy, "privileged:latest"}}},
      {"warn at baseline",
       {{kWarn, "baseline"}},
       baseline_pod,
       std::nullopt,
       {R"(would violate PodSecurity "baseline:latest": ulimits (container "app" must not set securityContext.ulimits))"},
       {{kEnforcePolicy, "privileged:latest"}}},
  });
}

// KEP-5474: writable cgroups are forbidden at restricted (v1.38+), allowed at baseline.
TEST(PodSecurityTest, CgroupOptionsSeed) {
  auto with_mode = [](std::string_view mode) {
    return PodYaml(std::string(kRestrictedSpec) +
                       "    cgroupOptions:\n      mountMode: " + std::string(mode) + "\n",
                   "", "cg");
  };
  RunCases({
      {"restricted rejects Writable",
       {{kEnforce, "restricted"}},
       with_mode("Writable"),
       R"(pods "cg" is forbidden: violates PodSecurity "restricted:latest": cgroupOptions (container "app" must not set securityContext.cgroupOptions.mountMode to "Writable"))",
       {},
       {{kEnforcePolicy, "restricted:latest"}}},
      {"restricted admits ReadOnly",
       {{kEnforce, "restricted"}},
       with_mode("ReadOnly"),
       std::nullopt,
       {},
       {{kEnforcePolicy, "restricted:latest"}}},
      {"restricted v1.37 admits Writable",
       {{kEnforce, "restricted"}, {kEnforceVersion, "v1.37"}},
       with_mode("Writable"),
       std::nullopt,
       {},
       {{kEnforcePolicy, "restricted:v1.37"}}},
      {"baseline admits Writable, restricted warns",
       {{kEnforce, "baseline"}, {kWarn, "restricted"}},
       with_mode("Writable"),
       std::nullopt,
       {R"(would violate PodSecurity "restricted:latest": cgroupOptions (container "app" must not set securityContext.cgroupOptions.mountMode to "Writable"))"},
       {{kEnforcePolicy, "baseline:latest"}}},
  });
}

// KEP-6063: a pod-level pid limit has no Pod Security impact at any level or version.
TEST(PodSecurityTest, PodPidLimitAllowedEverywhere) {
  const std::string pod = PodYaml(
      std::string(kRestrictedSpec) + "resources:\n  limits:\n    pid: \"2048\"\n", "", "agent");
  for (const char* level : {"privileged", "baseline", "restricted"}) {
    for (const char* version : {"latest", "v1.0", "v1.23", "v1.37", "v1.38"}) {
      SCOPED_TRACE(std::string(level) + ":" + version);
      auto p = DecodePod(pod);
      ASSERT_EQ(p.pod.spec.resources.has_value(), true);
      PodSecurity psa;
      auto d = psa.Evaluate(Namespace("ns", {{kEnforce, level},
                                             {kEnforceVersion, version},
                                             {kWarn, level},
                                             {kWarnVersion, version},
                                             {kAudit, level},
                                             {kAuditVersion, version}}),
                            p.pod, p.tree, "alice");
      EXPECT_TRUE(d.allowed()) << *d.forbidden_message;
      EXPECT_TRUE(d.warnings.empty());
      EXPECT_FALSE(d.audit_annotations.contains(kAuditViolations));
    }
  }
}

}  // namespace
}  // namespace podlimits::admission::psa
