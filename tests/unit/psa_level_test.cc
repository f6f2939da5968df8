// Levels, versions and namespace-label resolution (pod-security-admission api/helpers.go).
#include "admission/psa_level.h"

#include <gtest/gtest.h>

#include "field/field.h"

namespace podlimits::admission::psa {
namespace {

TEST(PsaLevelTest, ParseLevel) {
  struct Case {
    std::string text;
    std::optional<Level> want;
  };
  const std::vector<Case> cases = {
      {"privileged", Level::kPrivileged},
      {"baseline", Level::kBaseline},
      {"restricted", Level::kRestricted},
      {"Restricted", std::nullopt},
      {"", std::nullopt},
      {"restricted ", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto got = ParseLevel(c.text);
    if (c.want) {
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(*got, *c.want);
      EXPECT_EQ(LevelName(*got), c.text);
    } else {
      ASSERT_FALSE(got.has_value());
      EXPECT_EQ(got.error().Message(), "must be one of privileged, baseline, restricted");
    }
  }
}

TEST(PsaLevelTest, ParseVersion) {
  struct Case {
    std::string text;
    bool ok;
    std::string canonical;
  };
  const std::vector<Case> cases = {
      {"latest", true, "latest"}, {"v1.0", true, "v1.0"},
      {"v1.1", true, "v1.1"},     {"v1.20", true, "v1.20"},
      {"v1.38", true, "v1.38"},   {"v1.10000", true, "v1.10000"},
      {"foo", false, ""},         {"", false, ""},
      {"v2.0", false, ""},        {"v1", false, ""},
      {"1.1", false, ""},         {"v1.05", false, ""},  // leading zero
      {"v1.", false, ""},         {"v1.-1", false, ""},
      {"v1.+1", false, ""},       {"v1.2x", false, ""},
      {"Latest", false, ""},      {"v1.99999999999999999999999", false, ""},  // Atoi overflow
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto got = ParseVersion(c.text);
    ASSERT_EQ(got.has_value(), c.ok);
    if (c.ok) {
      EXPECT_EQ(got->String(), c.canonical);
    } else {
      EXPECT_EQ(got.error().Message(), R"(must be "latest" or "v1.x")");
    }
  }
}

TEST(PsaLevelTest, VersionOrderAndStrings) {
  EXPECT_TRUE(Version::MajorMinor(22).Older(Version::MajorMinor(23)));
  EXPECT_FALSE(Version::MajorMinor(23).Older(Version::MajorMinor(23)));
  EXPECT_TRUE(Version::MajorMinor(1000).Older(Version::Latest()));
  EXPECT_FALSE(Version::Latest().Older(Version::MajorMinor(1000)));
  EXPECT_FALSE(Version::Latest().Older(Version::Latest()));
  EXPECT_EQ((LevelVersion{Level::kRestricted, Version::Latest()}.String()), "restricted:latest");
  EXPECT_EQ((LevelVersion{Level::kBaseline, Version::MajorMinor(29)}.String()), "baseline:v1.29");
  // Privileged ignores the version when comparing policies.
  EXPECT_TRUE((LevelVersion{Level::kPrivileged, Version::MajorMinor(3)}.Equivalent(
      LevelVersion{Level::kPrivileged, Version::Latest()})));
  EXPECT_FALSE((LevelVersion{Level::kBaseline, Version::MajorMinor(3)}.Equivalent(
      LevelVersion{Level::kBaseline, Version::Latest()})));
}

std::map<std::string, std::string> Labels(
    std::initializer_list<std::pair<const char*, const char*>> kv) {
  // An unrelated label, so "no pod-security labels" is not the same as "no labels".
  std::map<std::string, std::string> out = {{"other-label", "foo-bar"}};
  for (auto [k, v] : kv) out[std::string("pod-security.kubernetes.io/") + k] = v;
  return out;
}

TEST(PsaLevelTest, PolicyToEvaluate) {
  const LevelVersion priv{Level::kPrivileged, Version::Latest()};
  auto lv = [](Level l, std::optional<std::int64_t> minor = std::nullopt) {
    return LevelVersion{l, minor ? Version::MajorMinor(*minor) : Version::Latest()};
  };
  struct Case {
    std::string name;
    std::map<std::string, std::string> labels;
    Policy defaults;
    Policy want;
    std::vector<std::string> want_errors;
  };
  const Policy privileged = PrivilegedPolicy();
  const Policy baseline_defaults{lv(Level::kBaseline, 23), lv(Level::kBaseline, 23),
                                 lv(Level::kBaseline, 23)};
  const std::vector<Case> cases = {
      {"no labels", {}, privileged, privileged, {}},
      {"simple enforce (implicit warn)",
       Labels({{"enforce", "baseline"}}),
       privileged,
       {lv(Level::kBaseline), priv, lv(Level::kBaseline)},
       {}},
      {"simple warn",
       Labels({{"warn", "restricted"}}),
       privileged,
       {priv, priv, lv(Level::kRestricted)},
       {}},
      {"simple audit",
       Labels({{"audit", "baseline"}}),
       privileged,
       {priv, lv(Level::kBaseline), priv},
       {}},
      {"enforce & warn",
       Labels({{"enforce", "baseline"}, {"warn", "restricted"}}),
       privileged,
       {lv(Level::kBaseline), priv, lv(Level::kRestricted)},
       {}},
      {"enforce version carries to implicit warn",
       Labels({{"enforce", "baseline"}, {"enforce-version", "v1.22"}}),
       privileged,
       {lv(Level::kBaseline, 22), priv, lv(Level::kBaseline, 22)},
       {}},
      {"explicit warn-version wins over enforce-version",
       Labels({{"enforce", "baseline"}, {"enforce-version", "v1.22"}, {"warn-version", "latest"}}),
       privileged,
       {lv(Level::kBaseline, 22), priv, lv(Level::kBaseline)},
       {}},
      {"enforce & warn-version",
       Labels({{"enforce", "baseline"}, {"warn-version", "v1.23"}}),
       privileged,
       {lv(Level::kBaseline), priv, lv(Level::kBaseline, 23)},
       {}},
      {"fully specified",
       Labels({{"enforce", "baseline"},
               {"enforce-version", "v1.20"},
               {"warn", "restricted"},
               {"warn-version", "v1.21"},
               {"audit", "restricted"},
               {"audit-version", "v1.22"}}),
       privileged,
       {lv(Level::kBaseline, 20), lv(Level::kRestricted, 22), lv(Level::kRestricted, 21)},
       {}},
      {"explicit privileged warn is kept",
       Labels({{"enforce", "baseline"}, {"warn", "privileged"}}),
       privileged,
       {lv(Level::kBaseline), priv, priv},
       {}},
      {"implicit warn only when enforce is stricter than the default warn",
       Labels({{"enforce", "baseline"}}),
       Policy{priv, priv, lv(Level::kRestricted, 30)},
       {lv(Level::kBaseline), priv, lv(Level::kRestricted, 30)},
       {}},
      {"labels override configured defaults, missing ones keep them",
       Labels({{"audit", "restricted"}}),
       baseline_defaults,
       {lv(Level::kBaseline, 23), lv(Level::kRestricted, 23), lv(Level::kBaseline, 23)},
       {}},
      {"invalid enforce fails closed, no implicit warn",
       Labels({{"enforce", "foo"}}),
       privileged,
       {lv(Level::kRestricted), priv, priv},
       {R"(metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted)"}},
      {"invalid warn fails open",
       Labels({{"enforce", "baseline"}, {"warn", "foo"}}),
       privileged,
       {lv(Level::kBaseline), priv, priv},
       {R"(metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "foo": must be one of privileged, baseline, restricted)"}},
      {"invalid audit fails open",
       Labels({{"audit", "Baseline"}}),
       baseline_defaults,
       // The version still comes from the defaults; only the level falls back.
       {lv(Level::kBaseline, 23), lv(Level::kPrivileged, 23), lv(Level::kBaseline, 23)},
       {R"(metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "Baseline": must be one of privileged, baseline, restricted)"}},
      {"invalid versions become latest, errors in label order",
       Labels({{"enforce", "restricted"},
               {"enforce-version", "v1.05"},
               {"audit-version", "1.25"},
               {"warn-version", "v2.0"}}),
       privileged,
       {lv(Level::kRestricted), priv, lv(Level::kRestricted)},
       {R"(metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "v1.05": must be "latest" or "v1.x")",
        R"(metadata.labels[pod-security.kubernetes.io/audit-version]: Invalid value: "1.25": must be "latest" or "v1.x")",
        R"(metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "v2.0": must be "latest" or "v1.x")"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    NamespacePolicy got = PolicyToEvaluate(c.labels, c.defaults);
    EXPECT_EQ(got.policy.enforce.String(), c.want.enforce.String());
    EXPECT_EQ(got.policy.audit.String(), c.want.audit.String());
    EXPECT_EQ(got.policy.warn.String(), c.want.warn.String());
    std::vector<std::string> errors;
    for (const auto& e : got.errors) errors.push_back(e.String());
    EXPECT_EQ(errors, c.want_errors);
  }
}

}  // namespace
}  // namespace podlimits::admission::psa
