// The store stays bounded: old events expire after the event TTL, the change log is compacted.
#include "apiserver/store_maintenance.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "apiserver/human_duration.h"
#include "temp_dir.h"

namespace podlimits::apiserver {
namespace {

TEST(StoreMaintenanceTest, ExpiresOldEventsAndCompacts) {
  podlimits::testing::TempDir dir{"podlimits-maint"};
  auto store = ObjectStore::Open(dir / "state.db");
  ASSERT_TRUE(store);
  auto event = [&](const std::string& name, const std::string& last) {
    return (*store)->Create({"events", "default", name}, [&](std::int64_t) {
      return R"({"kind":"Event","apiVersion":"v1","metadata":{"name":")" + name +
             R"(","namespace":"default"},"lastTimestamp":")" + last + R"("})";
    });
  };
  ASSERT_TRUE(event("old", "2026-11-26T00:00:00Z"));
  ASSERT_TRUE(event("recent", "2026-11-26T00:59:00Z"));
  ASSERT_TRUE((*store)->Create({"events", "default", "micro"}, [](std::int64_t) {
    return std::string(
        R"({"kind":"Event","metadata":{"name":"micro"},"eventTime":"2026-11-25T23:00:00.123456Z"})");
  }));
  StoreMaintenanceOptions options;
  options.keep_changes = 2;
  options.clock = [] { return *ParseApiTime("2026-11-26T01:00:30Z"); };
  StoreMaintenance maintenance(**store, options);
  EXPECT_EQ(maintenance.RunOnce(), 2);
  EXPECT_FALSE((*store)->Get({"events", "default", "old"}));
  EXPECT_FALSE((*store)->Get({"events", "default", "micro"}));
  EXPECT_TRUE((*store)->Get({"events", "default", "recent"}));
  // The log was compacted before the deletes: a watch from the start is Gone.
  auto changes = (*store)->ChangesSince("events", "", true, 0);
  ASSERT_FALSE(changes);
  EXPECT_EQ(changes.error().kind, StoreError::Kind::kGone);
}

TEST(StoreMaintenanceTest, ExpiresEventsAcrossPages) {
  podlimits::testing::TempDir dir{"podlimits-maint"};
  auto store = ObjectStore::Open(dir / "state.db");
  ASSERT_TRUE(store);
  // More events than one page holds, every third one old, in two namespaces.
  int old = 0;
  for (int i = 0; i < 700; ++i) {
    const bool is_old = i % 3 == 0;
    old += is_old;
    const std::string name = fmt::format("e{:04}", i);
    ASSERT_TRUE((*store)->Create({"events", i % 2 ? "a" : "b", name}, [&](std::int64_t) {
      return R"({"kind":"Event","metadata":{"name":")" + name + R"("},"lastTimestamp":")" +
             (is_old ? "2026-11-25T00:00:00Z" : "2026-11-26T00:59:00Z") + R"("})";
    }));
  }
  StoreMaintenanceOptions options;
  options.clock = [] { return *ParseApiTime("2026-11-26T01:00:30Z"); };
  StoreMaintenance maintenance(**store, options);
  EXPECT_EQ(maintenance.RunOnce(), old);
  auto left = (*store)->List("events", "", true);
  ASSERT_TRUE(left);
  EXPECT_EQ(left->items.size(), 700u - old);
}

}  // namespace
}  // namespace podlimits::apiserver
