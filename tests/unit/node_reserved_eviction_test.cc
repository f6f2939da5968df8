#include <gtest/gtest.h>

#include "kubelet/eviction/eviction_threshold.h"
#include "kubelet/config/reserved_resources.h"

namespace podlimits::kubelet {
namespace {

TEST(NodeReservedResources, Parse) {
  struct Case {
    const char* name;
    std::map<std::string, std::string> in;
    const char* error;     // nullptr: parses
    std::int64_t pid = 0;  // the reserved pid Value() when it parses
  };
  const Case cases[] = {
      {"empty", {}, nullptr, 0},
      {"pid", {{"pid", "1000"}}, nullptr, 1000},
      {"pid with suffix", {{"pid", "2k"}}, nullptr, 2000},
      {"pid fraction rounds up", {{"pid", "1.5"}}, nullptr, 2},
      {"zero", {{"pid", "0"}}, nullptr, 0},
      {"every supported name",
       {{"cpu", "100m"}, {"memory", "1Gi"}, {"ephemeral-storage", "1Gi"}, {"pid", "10"}},
       nullptr,
       10},
      {"unsupported name", {{"nvidia.com/gpu", "1"}}, "cannot reserve \"nvidia.com/gpu\" resource"},
      {"the API's name is not the kubelet's", {{"pids", "1"}}, "cannot reserve \"pids\" resource"},
      {"bad quantity",
       {{"pid", "ten"}},
       "failed to parse quantity \"ten\" for \"pid\" resource: quantities must match the regular "
       "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {"bad suffix",
       {{"memory", "1kk"}},
       "failed to parse quantity \"1kk\" for \"memory\" resource: unable to parse quantity's "
       "suffix"},
      {"negative", {{"pid", "-1"}}, "resource quantity for \"pid\" cannot be negative: -1"},
      {"first bad entry in name order",
       {{"pid", "-1"}, {"cpu", "x"}},
       "failed to parse quantity \"x\" for \"cpu\" resource: quantities must match the regular "
       "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = ParseReservedResources(c.in);
    if (c.error) {
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().Message(), c.error);
      continue;
    }
    ASSERT_TRUE(r) << r.error();
    auto it = r->find("pid");
    EXPECT_EQ(it == r->end() ? 0 : it->second.Value(), c.pid);
  }
}

TEST(NodeEvictionThreshold, Parse) {
  struct Case {
    const char* name;
    const char* signal;
    const char* value;
    const char* error;     // nullptr: parses
    bool ignored = false;  // parses to no threshold
    std::int64_t at_capacity_32768 = 0;
  };
  const Case cases[] = {
      {"quantity", "pid.available", "1000", nullptr, false, 1000},
      {"quantity with suffix", "pid.available", "1k", nullptr, false, 1000},
      {"percentage", "pid.available", "10%", nullptr, false, 3276},
      {"fractional percentage", "pid.available", "0.5%", nullptr, false, 163},
      {"other signal", "memory.available", "100Mi", nullptr, false, 104857600},
      {"0% is ignored", "pid.available", "0%", nullptr, true},
      {"100% is ignored", "pid.available", "100%", nullptr, true},
      {"unknown signal", "pids.available", "10", "unsupported eviction signal pids.available"},
      {"negative percentage", "pid.available", "-5%",
       "eviction percentage threshold pid.available must be >= 0%: -5%"},
      {"percentage above 100", "pid.available", "150%",
       "eviction percentage threshold pid.available must be <= 100%: 150%"},
      {"bad percentage", "pid.available", "ten%",
       "strconv.ParseFloat: parsing \"ten\": invalid syntax"},
      {"percentage out of float32 range", "pid.available", "1e50%",
       "strconv.ParseFloat: parsing \"1e50\": value out of range"},
      {"zero quantity", "pid.available", "0",
       "eviction threshold pid.available must be positive: 0"},
      {"negative quantity", "pid.available", "-10",
       "eviction threshold pid.available must be positive: -10"},
      {"bad quantity", "pid.available", "lots",
       "quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = ParseThresholdStatement(c.signal, c.value);
    if (c.error) {
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().Message(), c.error);
      continue;
    }
    ASSERT_TRUE(r) << r.error();
    if (c.ignored) {
      EXPECT_FALSE(*r);
      continue;
    }
    ASSERT_TRUE(*r);
    EXPECT_EQ((*r)->signal, c.signal);
    EXPECT_EQ((*r)->text, c.value);
    EXPECT_EQ(ThresholdQuantity(**r, 32768), c.at_capacity_32768);
  }
}

TEST(NodeEvictionThreshold, Statements) {
  auto r = ParseThresholdStatements({{"pid.available", "5%"}, {"nodefs.available", "100%"}});
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 1u);  // 100% drops out
  EXPECT_EQ((*r)[0].signal, "pid.available");
  auto bad = ParseThresholdStatements({{"pid.available", "5%"}, {"imagefs.available", "0"}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().Message(), "eviction threshold imagefs.available must be positive: 0");
}

TEST(NodeEvictionThreshold, Met) {
  auto t = ParseThresholdStatement("pid.available", "1000");
  ASSERT_TRUE(t && *t);
  EXPECT_TRUE(ThresholdMet(**t, 32768, 999));
  EXPECT_FALSE(ThresholdMet(**t, 32768, 1000));  // LessThan: equal is not met
  auto pct = ParseThresholdStatement("pid.available", "10%");
  ASSERT_TRUE(pct && *pct);
  EXPECT_TRUE(ThresholdMet(**pct, 32768, 3275));
  EXPECT_FALSE(ThresholdMet(**pct, 32768, 3276));
}

}  // namespace
}  // namespace podlimits::kubelet
