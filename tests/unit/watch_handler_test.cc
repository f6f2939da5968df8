// Watches as the apiserver serves them: the initial ADDED list, changes from a resourceVersion,
// selectors that make objects appear and disappear, 410 once the log is compacted, watch-list's
// initial events and their closing bookmark, and periodic bookmarks.
#include "listwatch/watch_handler.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "listwatch/stored_object.h"
#include "stream_collector.h"
#include "temp_dir.h"

namespace podlimits::apiserver {
namespace {

using ::testing::HasSubstr;

class WatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = storage::ObjectStore::Open(dir_ / "state.db");
    ASSERT_TRUE(s);
    store_ = std::move(*s);
  }
  void FreshStore() {
    store_.reset();
    for (const char* f : {"state.db", "state.db-wal", "state.db-shm"}) {
      std::filesystem::remove(dir_ / f);
    }
    SetUp();
  }
  std::int64_t Put(const std::string& name, const std::string& labels, bool update = false) {
    auto render = [&](std::int64_t rv) {
      auto tree = *ParseStoredObject(
          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
          R"(","namespace":"default","labels":)" + labels + "}}");
      return RenderStoredObject(tree, "ConfigMap", rv);
    };
    auto r = update ? store_->Update({"configmaps", "default", name}, 0, render)
                    : store_->Create({"configmaps", "default", name}, render);
    return r ? r->revision : -1;
  }
  std::vector<std::string> Run(WatchRequest request, std::size_t events,
                               std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    request.resource = "configmaps";
    request.kind = "ConfigMap";
    request.api_version = "v1";
    request.namespace_ = "default";
    request.timeout = timeout;
    http::HttpResponse r = ServeWatch(*store_, std::move(request), [] {
      return std::chrono::sys_seconds(std::chrono::seconds(1'800'000'000));
    });
    podlimits::testing::StreamCollector c(events);
    r.stream(c);
    return c.lines;
  }
  podlimits::testing::TempDir dir_{"podlimits-watch"};
  std::unique_ptr<storage::ObjectStore> store_;
};

TEST_F(WatchTest, StartsWithTheObjectsThenFollowsChanges) {
  Put("a", "{}");
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Put("b", "{}");
    (void)store_->Delete({"configmaps", "default", "a"}, 0,
                         [](std::int64_t) { return std::string(R"({"metadata":{"name":"a"}})"); });
  });
  auto lines = Run({}, 3);
  later.join();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], HasSubstr(R"({"type":"ADDED","object":{"kind":"ConfigMap")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("name":"a")"));
  EXPECT_THAT(lines[1], HasSubstr(R"("type":"ADDED")"));
  EXPECT_THAT(lines[1], HasSubstr(R"("name":"b")"));
  EXPECT_THAT(lines[2], HasSubstr(R"("type":"DELETED")"));
  for (const auto& l : lines) EXPECT_EQ(l.back(), '\n');
}

TEST_F(WatchTest, FromAResourceVersion) {
  const std::int64_t rv = Put("a", "{}");
  Put("b", "{}");
  Put("a", R"({"x":"1"})", true);
  WatchRequest w;
  w.from = rv;
  auto lines = Run(w, 2);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr(R"("type":"ADDED")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("name":"b")"));
  EXPECT_THAT(lines[1], HasSubstr(R"("type":"MODIFIED")"));
}

TEST_F(WatchTest, SelectorsMakeObjectsComeAndGo) {
  Put("a", R"({"app":"web"})");
  Put("b", R"({"app":"db"})");
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Put("a", R"({"app":"other"})", true);  // stops matching
    Put("b", R"({"app":"web"})", true);    // starts matching
  });
  WatchRequest w;
  w.labels = *ParseLabelSelector("app=web");
  auto lines = Run(w, 3);
  later.join();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], HasSubstr(R"("type":"ADDED")"));
  EXPECT_THAT(lines[1], HasSubstr(R"("type":"DELETED")"));
  EXPECT_THAT(lines[1], HasSubstr(R"("name":"a")"));
  EXPECT_THAT(lines[2], HasSubstr(R"("type":"ADDED")"));
  EXPECT_THAT(lines[2], HasSubstr(R"("name":"b")"));
}

TEST_F(WatchTest, TooOldIsGone) {
  for (int i = 0; i < 5; ++i) Put("o" + std::to_string(i), "{}");
  ASSERT_TRUE(store_->Compact(2));
  WatchRequest w;
  w.from = 1;
  auto lines = Run(w, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr(R"("type":"ERROR")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("code":410)"));
  EXPECT_THAT(lines[0], HasSubstr("too old resource version: 1 (3)"));
}

TEST_F(WatchTest, TablesForKubectlGetW) {
  Put("a", "{}");
  WatchRequest w;
  w.table = true;
  auto lines = Run(w, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr(R"("kind":"Table")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("cells":["a")"));
}

// A damaged object ends the watch with the error that names it (its change is not skipped),
// both in the initial list and among the changes.
TEST_F(WatchTest, ADamagedObjectEndsTheWatchNamingIt) {
  Put("a", "{}");
  const std::int64_t before = Put("b", "{}");
  ASSERT_TRUE(store_->Update({"configmaps", "default", "b"}, 0,
                             [](std::int64_t) { return std::string("{\"kind\":"); }));
  for (const bool from_revision : {false, true}) {
    WatchRequest w;
    if (from_revision) w.from = before;
    auto lines = Run(w, 10);
    ASSERT_FALSE(lines.empty());
    EXPECT_THAT(lines.back(), HasSubstr(R"({"type":"ERROR","object":{"kind":"Status")"));
    EXPECT_THAT(lines.back(),
                HasSubstr("StorageError: corrupt object, Code: 7, Key: "
                          "/registry/configmaps/default/b, ResourceVersion: 0, "
                          "AdditionalErrorMsg: object not decodable: invalid JSON at byte 8: "
                          "Invalid value."));
    EXPECT_THAT(lines.back(), HasSubstr(R"("code":500)"));
    // From the start: a's ADDED, then the error; from b's revision: the error alone.
    EXPECT_EQ(lines.size(), from_revision ? 1u : 2u);
  }
}

std::string Bookmark(std::int64_t revision, bool initial_events_end) {
  return R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":)"
         R"({"resourceVersion":")" +
         std::to_string(revision) + "\"" +
         (initial_events_end ? R"(,"annotations":{"k8s.io/initial-events-end":"true"})" : "") +
         "}}}\n";
}

// client-go's informers (sendInitialEvents=true, NotOlderThan, allowWatchBookmarks): the state
// as ADDED, then the bookmark that ends the initial events at that state's revision (even from
// an older resourceVersion: NotOlderThan), then the changes.
TEST_F(WatchTest, WatchListSendsTheStateThenTheInitialEventsEndBookmark) {
  const std::int64_t first = Put("a", "{}");
  const std::int64_t state = Put("b", "{}");
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Put("c", "{}");
  });
  WatchRequest w;
  w.from = first;
  w.send_initial_events = true;
  w.initial_events_end_bookmark = true;
  auto lines = Run(w, 4);
  later.join();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_THAT(lines[0], HasSubstr(R"({"type":"ADDED","object":{"kind":"ConfigMap")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("name":"a")"));
  EXPECT_THAT(lines[1], HasSubstr(R"("name":"b")"));
  EXPECT_EQ(lines[2], Bookmark(state, true));
  EXPECT_THAT(lines[3], HasSubstr(R"({"type":"ADDED")"));
  EXPECT_THAT(lines[3], HasSubstr(R"("name":"c")"));
}

// The initial events go out in a few large writes, not one per object (each write is a hand-off
// to the connection's thread), and what was written before the watch waits is flushed: a change
// after the sync arrives on its own.
TEST_F(WatchTest, WritesTheInitialEventsInBatches) {
  constexpr int kObjects = 400;
  for (int i = 0; i < kObjects; ++i) Put(fmt::format("cm-{:03}", i), R"({"padding":")" + std::string(100, 'x') + R"("})");
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Put("late", "{}");
  });
  WatchRequest w;
  w.send_initial_events = true;
  w.initial_events_end_bookmark = true;
  w.resource = "configmaps";
  w.kind = "ConfigMap";
  w.api_version = "v1";
  w.namespace_ = "default";
  w.timeout = std::chrono::seconds(5);
  http::HttpResponse r = ServeWatch(*store_, std::move(w), [] {
    return std::chrono::sys_seconds(std::chrono::seconds(1'800'000'000));
  });
  podlimits::testing::StreamCollector c(kObjects + 2);
  r.stream(c);
  later.join();
  ASSERT_EQ(c.lines.size(), kObjects + 2u);
  EXPECT_THAT(c.lines[0], HasSubstr(R"("name":"cm-000")"));
  EXPECT_THAT(c.lines[kObjects - 1], HasSubstr(R"("name":"cm-399")"));
  EXPECT_THAT(c.lines[kObjects], HasSubstr(R"("k8s.io/initial-events-end":"true")"));
  EXPECT_THAT(c.lines[kObjects + 1], HasSubstr(R"("name":"late")"));
  // About 300 bytes an event: 400 of them fill a few 32 KiB batches; the late one is a write
  // of its own.
  EXPECT_LE(c.writes, 8u);
  EXPECT_GE(c.writes, 2u);
}

// Metadata-only informers (as=PartialObjectMetadata): every object, the initial-events-end
// bookmark's included, as its PartialObjectMetadata; as=PartialObjectMetadataList ends the
// stream at its first event, as the apiserver's encoder fails on it.
TEST_F(WatchTest, PartialObjectMetadataEvents) {
  const std::int64_t state = Put("a", R"({"app":"x"})");
  WatchRequest w;
  w.send_initial_events = true;
  w.initial_events_end_bookmark = true;
  w.metadata = MetadataConversion::kPartialObjectMetadata;
  w.metadata_version = "v1";
  auto run = [&](WatchRequest request, std::size_t events) {
    request.resource = "configmaps";
    request.kind = "PartialObjectMetadata";
    request.api_version = "meta.k8s.io/v1";
    request.namespace_ = "default";
    request.timeout = std::chrono::seconds(1);
    http::HttpResponse r = ServeWatch(*store_, std::move(request), [] {
      return std::chrono::sys_seconds(std::chrono::seconds(1'800'000'000));
    });
    podlimits::testing::StreamCollector c(events);
    r.stream(c);
    return c.lines;
  };
  auto lines = run(w, 2);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], fmt::format(R"({{"type":"ADDED","object":{{"kind":"PartialObjectMetadata",)"
                                  R"("apiVersion":"meta.k8s.io/v1","metadata":{{"name":"a",)"
                                  R"("namespace":"default","resourceVersion":"{}",)"
                                  R"("labels":{{"app":"x"}}}}}}}})"
                                  "\n",
                                  state));
  EXPECT_EQ(lines[1], fmt::format(R"({{"type":"BOOKMARK","object":{{"kind":"PartialObjectMetadata",)"
                                  R"("apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"{}",)"
                                  R"("annotations":{{"k8s.io/initial-events-end":"true"}}}}}}}})"
                                  "\n",
                                  state));
  w.metadata = MetadataConversion::kPartialObjectMetadataList;
  EXPECT_THAT(run(w, 1), ::testing::IsEmpty());
}

TEST_F(WatchTest, BookmarksOnlyWhenAllowed) {
  struct Case {
    const char* name;
    bool send_initial_events;
    bool initial_events_end_bookmark;
    std::vector<std::string> types;  // of the first three events
  };
  const Case cases[] = {
      {"watch-list without allowWatchBookmarks: no bookmark", true, false,
       {"ADDED", "ADDED", "ADDED"}},
      {"watch-list with allowWatchBookmarks", true, true, {"ADDED", "ADDED", "BOOKMARK"}},
      {"a legacy watch from 0: no bookmark", false, false, {"ADDED", "ADDED", "ADDED"}},
  };
  for (const auto& c : cases) {
    FreshStore();
    Put("a", "{}");
    Put("b", "{}");
    std::thread later([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      Put("c", "{}");
    });
    WatchRequest w;
    w.send_initial_events = c.send_initial_events;
    w.initial_events_end_bookmark = c.initial_events_end_bookmark;
    auto lines = Run(w, 3);
    later.join();
    ASSERT_EQ(lines.size(), 3u) << c.name;
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_THAT(lines[i], HasSubstr("{\"type\":\"" + c.types[i] + "\"")) << c.name << " #" << i;
    }
  }
}

// allowWatchBookmarks: a bookmark every period at the revision the watch has caught up to,
// which moves with writes to other namespaces and resources too (the store's revision).
TEST_F(WatchTest, PeriodicBookmarksAtTheRevisionCaughtUpTo) {
  const std::int64_t start = Put("a", "{}");
  auto other = store_->Create({"configmaps", "elsewhere", "x"}, [](std::int64_t rv) {
    codec::Node tree = *ParseStoredObject(R"({"metadata":{"name":"x","namespace":"elsewhere"}})");
    return RenderStoredObject(tree, "ConfigMap", rv);
  });
  ASSERT_TRUE(other);
  WatchRequest w;
  w.from = start;
  w.bookmarks = true;
  w.bookmark_period = std::chrono::milliseconds(100);
  const auto began = std::chrono::steady_clock::now();
  auto lines = Run(w, 2);
  const auto took = std::chrono::steady_clock::now() - began;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], Bookmark(other->revision, false));
  EXPECT_EQ(lines[1], Bookmark(other->revision, false));
  EXPECT_GE(took, std::chrono::milliseconds(200));
}

// The cacher's last bookmark comes 2 s before the watch's timeout, so a client resumes from as
// late as it can; the period (a minute) is far off here.
TEST_F(WatchTest, ABookmarkBeforeTheTimeout) {
  const std::int64_t start = Put("a", "{}");
  WatchRequest w;
  w.from = start;
  w.bookmarks = true;
  const auto began = std::chrono::steady_clock::now();
  auto lines = Run(w, 2, std::chrono::milliseconds(2'500));
  const auto took = std::chrono::steady_clock::now() - began;
  ASSERT_EQ(lines.size(), 1u);  // and nothing else until the timeout
  EXPECT_EQ(lines[0], Bookmark(start, false));
  EXPECT_GE(took, std::chrono::milliseconds(2'400));
}

}  // namespace
}  // namespace podlimits::apiserver
