// `podlimits nri --config`: the keys it shares with podlimits-runc's file and its own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nri/nri_config.h"
#include "temp_dir.h"

namespace podlimits::nri {
namespace {

using ::testing::HasSubstr;

TEST(NriConfigTest, KeysAndErrors) {
  auto empty = ParseNriConfig("", "nri.yaml");
  ASSERT_TRUE(empty) << empty.error();
  EXPECT_EQ(empty->plugin_name, "podlimits");
  EXPECT_EQ(empty->plugin_index, "10");
  EXPECT_EQ(empty->limits.max_descendants, 250);
  EXPECT_TRUE(empty->limits.default_ulimits.empty());

  auto full = ParseNriConfig(
      "pluginName: limits\npluginIndex: \"90\"\nwritableCgroups: {maxDescendants: 10, maxDepth: 3}\n"
      "defaultUlimits:\n  - {name: nofile, soft: 1048576, hard: 1048576}\n",
      "f");
  ASSERT_TRUE(full) << full.error();
  EXPECT_EQ(full->plugin_name, "limits");
  EXPECT_EQ(full->plugin_index, "90");
  EXPECT_EQ(full->limits.max_descendants, 10);
  EXPECT_EQ(full->limits.max_depth, 3);
  ASSERT_EQ(full->limits.default_ulimits.size(), 1u);
  EXPECT_EQ(full->limits.default_ulimits[0].hard, 1048576);

  struct Case {
    const char* name;
    const char* text;
    const char* error;
  } cases[] = {
      {"the wrapper's runtime key", "runtime: /usr/bin/crun\n",
       "f: unknown key \"runtime\" (pluginName, pluginIndex, writableCgroups, defaultUlimits)"},
      {"an index of one digit", "pluginIndex: 5\n",
       "f: pluginIndex: must be two digits (\"00\" to \"99\"), not \"5\""},
      {"an empty name", "pluginName: \"\"\n", "f: pluginName: must be a non-empty string"},
      {"bounds as the wrapper reads them", "writableCgroups: {maxDepth: -1}\n",
       "f: writableCgroups.maxDepth: must be a non-negative integer, not \"-1\""},
      {"defaults as the wrapper reads them", "defaultUlimits: [{name: nofile, soft: 2, hard: 1}]\n",
       "f: defaultUlimits[0].soft: Invalid value: 2"},
      {"not a mapping", "- a\n", "f: must be one YAML mapping"},
  };
  for (const auto& c : cases) {
    auto r = ParseNriConfig(c.text, "f");
    ASSERT_FALSE(r) << c.name;
    EXPECT_THAT(r.error().Message(), HasSubstr(c.error)) << c.name;
  }
}

TEST(NriConfigTest, ANamedFileMustExist) {
  podlimits::testing::TempDir tmp("nri-config");
  auto missing = LoadNriConfig(tmp.path() / "absent.yaml");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().Message(), HasSubstr("read podlimits nri's configuration"));
  tmp.Write("nri.yaml", "pluginIndex: \"20\"\n");
  auto loaded = LoadNriConfig(tmp.path() / "nri.yaml");
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->plugin_index, "20");
  EXPECT_EQ(loaded->limits.source, tmp.path() / "nri.yaml");
}

}  // namespace
}  // namespace podlimits::nri
