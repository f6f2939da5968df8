// Which checks run at each level and version, in which order, and how results aggregate.
#include "admission/psa_registry.h"

#include <gtest/gtest.h>

#include "psa_test_util.h"

namespace podlimits::admission::psa {
namespace {

using testing::LV;

std::vector<std::string> Ids(const LevelVersion& lv) {
  std::vector<std::string> out;
  for (auto id : Evaluator::Default().CheckIDs(lv)) out.emplace_back(id);
  return out;
}

TEST(PsaRegistryTest, EvaluationOrderAndVersions) {
  struct Case {
    std::string level, version;
    std::vector<std::string> ids;
  };
  const std::vector<Case> cases = {
      {"privileged", "latest", {}},
      {"baseline",
       "v1.0",
       {"appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPathVolumes",
        "hostPorts", "privileged", "procMount", "seLinuxOptions", "seccompProfile_baseline",
        "sysctls", "windowsHostProcess"}},
      {"baseline",
       "v1.34",
       {"appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPathVolumes",
        "hostPorts", "hostProbesAndHostLifecycle", "privileged", "procMount", "seLinuxOptions",
        "seccompProfile_baseline", "sysctls", "windowsHostProcess"}},
      {"baseline",
       "latest",
       {"appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPathVolumes",
        "hostPorts", "hostProbesAndHostLifecycle", "privileged", "procMount", "seLinuxOptions",
        "seccompProfile_baseline", "sysctls", "ulimits", "windowsHostProcess"}},
      // hostPathVolumes is replaced by restrictedVolumes at every version.
      {"restricted",
       "v1.0",
       {"appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPorts", "privileged",
        "procMount", "seLinuxOptions", "seccompProfile_baseline", "sysctls", "windowsHostProcess",
        "restrictedVolumes", "runAsNonRoot"}},
      {"restricted",
       "v1.8",
       {"appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPorts", "privileged",
        "procMount", "seLinuxOptions", "seccompProfile_baseline", "sysctls", "windowsHostProcess",
        "allowPrivilegeEscalation", "restrictedVolumes", "runAsNonRoot"}},
      {"restricted",
       "v1.19",
       {"appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPorts", "privileged",
        "procMount", "seLinuxOptions", "sysctls", "windowsHostProcess", "allowPrivilegeEscalation",
        "restrictedVolumes", "runAsNonRoot", "seccompProfile_restricted"}},
      {"restricted",
       "v1.23",
       {"appArmorProfile", "hostNamespaces", "hostPorts", "privileged", "procMount",
        "seLinuxOptions", "sysctls", "windowsHostProcess", "allowPrivilegeEscalation",
        "capabilities_restricted", "restrictedVolumes", "runAsNonRoot", "runAsUser",
        "seccompProfile_restricted"}},
      {"restricted",
       "v1.35",
       {"appArmorProfile", "hostNamespaces", "hostPorts", "hostProbesAndHostLifecycle",
        "privileged", "seLinuxOptions", "sysctls", "windowsHostProcess", "allowPrivilegeEscalation",
        "capabilities_restricted", "procMount_restricted", "restrictedVolumes", "runAsNonRoot",
        "runAsUser", "seccompProfile_restricted"}},
      {"restricted",
       "latest",
       {"appArmorProfile", "hostNamespaces", "hostPorts", "hostProbesAndHostLifecycle",
        "privileged", "seLinuxOptions", "sysctls", "ulimits", "windowsHostProcess",
        "allowPrivilegeEscalation", "capabilities_restricted", "cgroupOptions_restricted",
        "procMount_restricted", "restrictedVolumes", "runAsNonRoot", "runAsUser",
        "seccompProfile_restricted"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.level + ":" + c.version);
    EXPECT_EQ(Ids(LV(c.level, c.version)), c.ids);
  }
}

TEST(PsaRegistryTest, LatestAndFutureVersionsClampToNewest) {
  const Evaluator& e = Evaluator::Default();
  EXPECT_EQ(e.max_version().String(), "v1.38");
  for (const char* level : {"baseline", "restricted"}) {
    SCOPED_TRACE(level);
    EXPECT_EQ(Ids(LV(level, "latest")), Ids(LV(level, "v1.38")));
    EXPECT_EQ(Ids(LV(level, "v1.99")), Ids(LV(level, "v1.38")));
    EXPECT_NE(Ids(LV(level, "v1.37")), Ids(LV(level, "v1.38")));
  }
}

TEST(PsaRegistryTest, EveryBuiltInCheckIsValid) {
  auto e = Evaluator::Create(DefaultChecks());
  ASSERT_TRUE(e.has_value()) << e.error();
}

CheckResult Allow(const api::ObjectMeta&, const api::PodSpec&) {
  return CheckResult::Allow();
}

TEST(PsaRegistryTest, CreateRejectsMalformedRegistries) {
  const Version v0 = Version::MajorMinor(0);
  const Version v5 = Version::MajorMinor(5);
  struct Case {
    std::string name;
    std::vector<Check> checks;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"duplicate id",
       {{"a", Level::kBaseline, {{v0, Allow, {}}}}, {"a", Level::kRestricted, {{v0, Allow, {}}}}},
       "multiple checks registered for ID a"},
      {"privileged level",
       {{"a", Level::kPrivileged, {{v0, Allow, {}}}}},
       "check a: invalid level privileged"},
      {"no versions", {{"a", Level::kBaseline, {}}}, "check a: empty"},
      {"latest",
       {{"a", Level::kBaseline, {{Version::Latest(), Allow, {}}}}},
       "check a: version cannot be 'latest'"},
      {"duplicate version",
       {{"a", Level::kBaseline, {{v5, Allow, {}}, {v5, Allow, {}}}}},
       "check a: duplicate version v1.5"},
      {"decreasing versions",
       {{"a", Level::kBaseline, {{v5, Allow, {}}, {v0, Allow, {}}}}},
       "check a: versions must be strictly increasing"},
      {"baseline override",
       {{"a", Level::kBaseline, {{v0, Allow, {"b"}}}}},
       "check a: only restricted checks may set overrides"},
      {"overriding a restricted check",
       {{"a", Level::kRestricted, {{v0, Allow, {"b"}}}},
        {"b", Level::kRestricted, {{v0, Allow, {}}}}},
       "check a: overrides restricted check b"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto e = Evaluator::Create(c.checks);
    ASSERT_FALSE(e.has_value());
    EXPECT_EQ(e.error().Message(), c.error);
  }
}

TEST(PsaRegistryTest, AggregateFormatting) {
  AggregateCheckResult r = AggregateCheckResults({
      CheckResult::Forbid("reason1", "detail1"),
      CheckResult::Allow(),
      CheckResult::Forbid("reason2", ""),
      CheckResult::Forbid("", "detail3"),
  });
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.ForbiddenReason(), "reason1, reason2, unknown forbidden reason");
  EXPECT_EQ(r.ForbiddenDetail(), "reason1 (detail1), reason2, unknown forbidden reason (detail3)");
  EXPECT_TRUE(AggregateCheckResults({CheckResult::Allow()}).allowed);
}

}  // namespace
}  // namespace podlimits::admission::psa
