// Watches as the apiserver serves them: the initial ADDED list, changes from a resourceVersion,
// selectors that make objects appear and disappear, and 410 once the log is compacted.
#include "apiserver/watch_handler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "apiserver/stored_object.h"
#include "temp_dir.h"

namespace podlimits::apiserver {
namespace {

using ::testing::HasSubstr;

// Collects what the watch writes; closes after `limit` events.
class Collector : public http::ResponseStream {
 public:
  explicit Collector(std::size_t limit) : limit_(limit) {}
  bool Write(std::string_view chunk) override {
    lines.emplace_back(chunk);
    return true;
  }
  bool Closed() override { return lines.size() >= limit_; }
  std::vector<std::string> lines;

 private:
  std::size_t limit_;
};

class WatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = storage::ObjectStore::Open(dir_ / "state.db");
    ASSERT_TRUE(s);
    store_ = std::move(*s);
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
  std::vector<std::string> Run(WatchRequest request, std::size_t events) {
    request.resource = "configmaps";
    request.namespace_ = "default";
    request.timeout = std::chrono::seconds(5);
    http::HttpResponse r = ServeWatch(*store_, std::move(request), [] {
      return std::chrono::sys_seconds(std::chrono::seconds(1'800'000'000));
    });
    Collector c(events);
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

}  // namespace
}  // namespace podlimits::apiserver
