// The store stays bounded: old events expire after the event TTL, the change log is compacted.
#include "apiserver/store_maintenance.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "printers/human_duration.h"
#include "temp_dir.h"

namespace podlimits::apiserver {
namespace {

TEST(StoreMaintenanceTest, ExpiresOldEventsAndCompacts) {
  podlimits::testing::TempDir dir{"podlimits-maint"};
  auto store = storage::ObjectStore::Open(dir / "state.db");
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
  options.clock = [] { return *printers::ParseApiTime("2026-11-26T01:00:30Z"); };
  StoreMaintenance maintenance(**store, options);
  EXPECT_EQ(maintenance.RunOnce(), 2);
  EXPECT_FALSE((*store)->Get({"events", "default", "old"}));
  EXPECT_FALSE((*store)->Get({"events", "default", "micro"}));
  EXPECT_TRUE((*store)->Get({"events", "default", "recent"}));
  // The log was compacted before the deletes: a watch from the start is Gone.
  auto changes = (*store)->ChangesSince("events", "", true, 0);
  ASSERT_FALSE(changes);
  EXPECT_EQ(changes.error().reason, storage::kExpired);
}

// The round's compaction is etcd's: lists at or after the compaction revision still show the
// objects as they were then (every page of a paged list does), lists before it are Gone.
TEST(StoreMaintenanceTest, CompactionLeavesLaterRevisionsListable) {
  podlimits::testing::TempDir dir{"podlimits-maint"};
  auto store = storage::ObjectStore::Open(dir / "state.db");
  ASSERT_TRUE(store);
  auto write = [&](bool create, const std::string& name, const std::string& text) {
    auto render = [&](std::int64_t rv) { return text + "@" + std::to_string(rv); };
    return create ? (*store)->Create({"configmaps", "default", name}, render)
                  : (*store)->Update({"configmaps", "default", name}, 0, render);
  };
  ASSERT_TRUE(write(true, "a", "a1"));   // 1
  ASSERT_TRUE(write(true, "b", "b1"));   // 2
  ASSERT_TRUE(write(false, "a", "a2"));  // 3
  ASSERT_TRUE(write(true, "c", "c1"));   // 4
  ASSERT_TRUE(write(false, "b", "b2"));  // 5
  ASSERT_TRUE(write(false, "c", "c2"));  // 6
  StoreMaintenanceOptions options;
  options.keep_changes = 2;  // compacts through revision 4
  options.clock = [] { return *printers::ParseApiTime("2026-11-26T01:00:30Z"); };
  StoreMaintenance maintenance(**store, options);
  EXPECT_EQ(maintenance.RunOnce(), 0);
  EXPECT_EQ(*(*store)->CompactedRevision(), 4);
  struct Case {
    std::int64_t revision;
    std::vector<std::string> data;  // empty: Gone
  };
  const Case cases[] = {
      {3, {}},
      {4, {"a2@3", "b1@2", "c1@4"}},
      {5, {"a2@3", "b2@5", "c1@4"}},
      {6, {"a2@3", "b2@5", "c2@6"}},
  };
  for (const auto& c : cases) {
    storage::PageRequest request;
    request.resource = "configmaps";
    request.namespace_ = "default";
    request.revision = c.revision;
    auto page = (*store)->ListPage(request);
    if (c.data.empty()) {
      ASSERT_FALSE(page) << c.revision;
      EXPECT_EQ(page.error().reason, storage::kExpired) << c.revision;
      continue;
    }
    ASSERT_TRUE(page) << c.revision << ": " << page.error().Message();
    std::vector<std::string> data;
    for (const auto& item : page->items) data.push_back(item.data);
    EXPECT_EQ(data, c.data) << c.revision;
  }
}

TEST(StoreMaintenanceTest, ExpiresEventsAcrossPages) {
  podlimits::testing::TempDir dir{"podlimits-maint"};
  auto store = storage::ObjectStore::Open(dir / "state.db");
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
  options.clock = [] { return *printers::ParseApiTime("2026-11-26T01:00:30Z"); };
  StoreMaintenance maintenance(**store, options);
  EXPECT_EQ(maintenance.RunOnce(), old);
  auto left = (*store)->List("events", "", true);
  ASSERT_TRUE(left);
  EXPECT_EQ(left->items.size(), 700u - old);
}

}  // namespace
}  // namespace podlimits::apiserver
