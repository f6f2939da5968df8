// The SQLite object store: revisions, optimistic concurrency, the change log and compaction,
// what survives a kill -9, its files' modes, the integrity check at open and its identity.
#include "storage/object_store.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace podlimits::storage {
namespace {


// An object whose bytes carry the revision they were rendered for.
Render Body(std::string text) {
  return [text](std::int64_t rv) { return text + "@" + std::to_string(rv); };
}

ObjectKey Pod(std::string ns, std::string name) { return {"pods", std::move(ns), std::move(name)}; }

class ObjectStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  void Reopen() {
    store_.reset();
    auto s = ObjectStore::Open(dir_ / "state.db");
    ASSERT_TRUE(s) << s.error().Message();
    store_ = std::move(*s);
  }
  podlimits::testing::TempDir dir_{"podlimits-store"};
  std::unique_ptr<ObjectStore> store_;
};

TEST_F(ObjectStoreTest, CreateGetAndRevisionsThatOnlyGrow) {
  auto a = store_->Create(Pod("default", "a"), Body("a"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->revision, 1);
  EXPECT_EQ(a->data, "a@1");
  auto ns = store_->Create({"namespaces", "", "team"}, Body("ns"));
  ASSERT_TRUE(ns);
  EXPECT_EQ(ns->revision, 2);  // one counter for every resource

  auto got = store_->Get(Pod("default", "a"));
  ASSERT_TRUE(got);
  EXPECT_EQ(got->revision, 1);
  EXPECT_EQ(got->data, "a@1");

  auto again = store_->Create(Pod("default", "a"), Body("a2"));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().reason, kAlreadyExists);
  EXPECT_EQ(again.error().Message(), "pods \"default/a\" already exists");

  auto missing = store_->Get(Pod("default", "nope"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().reason, kNotFound);

  // A deleted object's revision is never handed out again, also after a restart.
  ASSERT_TRUE(store_->Delete(Pod("default", "a"), 0, Body("gone")));
  Reopen();
  auto b = store_->Create(Pod("default", "a"), Body("again"));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->revision, 4);
  EXPECT_EQ(*store_->Revision(), 4);
}

TEST_F(ObjectStoreTest, OptimisticConcurrency) {
  ASSERT_TRUE(store_->Create(Pod("default", "web"), Body("v1")));
  auto updated = store_->Update(Pod("default", "web"), 1, Body("v2"));
  ASSERT_TRUE(updated);
  EXPECT_EQ(updated->revision, 2);

  auto stale = store_->Update(Pod("default", "web"), 1, Body("v3"));
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().reason, kConflict);
  EXPECT_EQ(stale.error().Message(), "pods \"default/web\" is at revision 2, not 1");
  EXPECT_EQ(store_->Get(Pod("default", "web"))->data, "v2@2");  // nothing half-applied

  auto unconditional = store_->Update(Pod("default", "web"), 0, Body("v4"));
  ASSERT_TRUE(unconditional);
  EXPECT_EQ(unconditional->revision, 3);

  auto stale_delete = store_->Delete(Pod("default", "web"), 2, Body("x"));
  ASSERT_FALSE(stale_delete);
  EXPECT_EQ(stale_delete.error().reason, kConflict);
  ASSERT_TRUE(store_->Delete(Pod("default", "web"), 3, Body("x")));

  auto gone = store_->Update(Pod("default", "web"), 0, Body("v5"));
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().reason, kNotFound);
  EXPECT_EQ(store_->Delete(Pod("default", "web"), 0, Body("x")).error().reason, kNotFound);
}

TEST_F(ObjectStoreTest, ListsByNamespaceOrAll) {
  ASSERT_TRUE(store_->Create(Pod("b", "z"), Body("1")));
  ASSERT_TRUE(store_->Create(Pod("a", "y"), Body("2")));
  ASSERT_TRUE(store_->Create(Pod("b", "x"), Body("3")));
  ASSERT_TRUE(store_->Create({"configmaps", "b", "c"}, Body("4")));

  auto in_b = store_->List("pods", "b", false);
  ASSERT_TRUE(in_b);
  ASSERT_EQ(in_b->items.size(), 2u);
  EXPECT_EQ(in_b->items[0].key.name, "x");
  EXPECT_EQ(in_b->items[1].key.name, "z");
  EXPECT_EQ(in_b->revision, 4);

  auto all = store_->List("pods", "", true);
  ASSERT_TRUE(all);
  std::vector<std::string> names;
  for (const auto& o : all->items) names.push_back(o.key.namespace_ + "/" + o.key.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a/y", "b/x", "b/z"}));
}

TEST_F(ObjectStoreTest, ListsAfterAKeyInPages) {
  for (const auto& [ns, name] : std::vector<std::pair<std::string, std::string>>{
           {"b", "z"}, {"a", "y"}, {"b", "x"}, {"a", "w"}, {"c", "a"}}) {
    ASSERT_TRUE(store_->Create(Pod(ns, name), Body(name)));
  }
  ASSERT_TRUE(store_->Create({"configmaps", "a", "a"}, Body("not a pod")));
  std::vector<std::string> seen;
  ObjectKey after{"pods", "", ""};
  int pages = 0;
  while (true) {
    auto page = store_->ListAfter("pods", after, 2);
    ASSERT_TRUE(page);
    if (page->empty()) break;
    ++pages;
    for (const auto& o : *page) seen.push_back(o.key.namespace_ + "/" + o.key.name + "=" + o.data);
    after = page->back().key;
  }
  EXPECT_EQ(pages, 3);
  // Each object with the revision it was written at.
  EXPECT_EQ(seen, (std::vector<std::string>{"a/w=w@4", "a/y=y@2", "b/x=x@3", "b/z=z@1", "c/a=a@5"}));
}

TEST_F(ObjectStoreTest, ChangesAndCompaction) {
  ASSERT_TRUE(store_->Create(Pod("a", "p"), Body("1")));          // 1
  ASSERT_TRUE(store_->Create(Pod("b", "q"), Body("2")));          // 2
  ASSERT_TRUE(store_->Update(Pod("a", "p"), 1, Body("3")));       // 3
  ASSERT_TRUE(store_->Create({"secrets", "a", "s"}, Body("4")));  // 4
  ASSERT_TRUE(store_->Delete(Pod("a", "p"), 0, Body("5")));       // 5

  auto all = store_->ChangesSince("pods", "", true, 0);
  ASSERT_TRUE(all);
  std::vector<std::string> seen;
  for (const auto& e : *all) {
    seen.push_back(std::string(WatchEventTypeName(e.type)) + " " + e.object.data);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"ADDED 1@1", "ADDED 2@2", "MODIFIED 3@3",
                                            "DELETED 5@5"}));
  auto in_a_after_1 = store_->ChangesSince("pods", "a", false, 1);
  ASSERT_TRUE(in_a_after_1);
  ASSERT_EQ(in_a_after_1->size(), 2u);
  EXPECT_EQ((*in_a_after_1)[0].object.revision, 3);

  ASSERT_TRUE(store_->Compact(2));  // keeps revisions 4 and 5
  auto old = store_->ChangesSince("pods", "", true, 2);
  ASSERT_FALSE(old);
  EXPECT_EQ(old.error().reason, kExpired);
  EXPECT_EQ(old.error().Message(), "too old resource version: 2 (3)");
  auto from_compacted = store_->ChangesSince("pods", "", true, 3);
  ASSERT_TRUE(from_compacted);
  ASSERT_EQ(from_compacted->size(), 1u);
  EXPECT_EQ((*from_compacted)[0].type, WatchEventType::kDeleted);
  Reopen();  // the compaction point is stored
  EXPECT_EQ(store_->ChangesSince("pods", "", true, 1).error().reason, kExpired);
  EXPECT_TRUE(store_->Compact(10));  // nothing more to drop
}

// "ns/name=data" for each item of a page.
std::vector<std::string> Items(const Page& page) {
  std::vector<std::string> out;
  for (const auto& o : page.items) {
    out.push_back(o.key.namespace_ + "/" + o.key.name + "=" + o.data);
  }
  return out;
}

PageRequest Pods(std::size_t limit, std::int64_t revision = 0, ListStart start = {}) {
  PageRequest r;
  r.resource = "pods";
  r.all_namespaces = true;
  r.limit = limit;
  r.revision = revision;
  r.start = std::move(start);
  r.count_remaining = true;
  return r;
}

TEST_F(ObjectStoreTest, PagesInKeyOrderWithALimit) {
  for (const auto& [ns, name] : std::vector<std::pair<std::string, std::string>>{
           {"b", "z"}, {"a", "y"}, {"b", "x"}, {"a", "w"}, {"c", "a"}}) {
    ASSERT_TRUE(store_->Create(Pod(ns, name), Body(name)));
  }
  ASSERT_TRUE(store_->Create({"configmaps", "a", "a"}, Body("not a pod")));
  PageRequest in_b = Pods(1);
  in_b.all_namespaces = false;
  in_b.namespace_ = "b";
  PageRequest in_b_after_x = in_b;
  in_b_after_x.start = {"b", "x", true};
  struct Case {
    const char* name;
    PageRequest request;
    std::vector<std::string> items;
    bool more;
    std::int64_t remaining;
  };
  const Case cases[] = {
      {"first page", Pods(2), {"a/w=w@4", "a/y=y@2"}, true, 3},
      {"middle page", Pods(2, 0, {"a", "y", true}), {"b/x=x@3", "b/z=z@1"}, true, 1},
      {"last page", Pods(2, 0, {"b", "z", true}), {"c/a=a@5"}, false, 0},
      {"from a key itself", Pods(2, 0, {"b", "x", false}), {"b/x=x@3", "b/z=z@1"}, true, 1},
      {"from a namespace", Pods(1, 0, {"b", "", false}), {"b/x=x@3"}, true, 2},
      {"past the end", Pods(2, 0, {"c", "a", true}), {}, false, 0},
      {"no limit", Pods(0), {"a/w=w@4", "a/y=y@2", "b/x=x@3", "b/z=z@1", "c/a=a@5"}, false, 0},
      {"the limit exactly", Pods(5), {"a/w=w@4", "a/y=y@2", "b/x=x@3", "b/z=z@1", "c/a=a@5"},
       false, 0},
      {"one namespace", in_b, {"b/x=x@3"}, true, 1},
      {"one namespace, after a name", in_b_after_x, {"b/z=z@1"}, false, 0},
  };
  for (const auto& c : cases) {
    auto page = store_->ListPage(c.request);
    ASSERT_TRUE(page) << c.name << ": " << page.error().Message();
    EXPECT_EQ(Items(*page), c.items) << c.name;
    EXPECT_EQ(page->more, c.more) << c.name;
    EXPECT_EQ(page->remaining, c.remaining) << c.name;
    EXPECT_EQ(page->revision, 6) << c.name;
  }
}

// The writes every test below starts from, and what the pods were after each.
class ObjectStoreHistoryTest : public ObjectStoreTest {
 protected:
  void SetUp() override {
    ObjectStoreTest::SetUp();
    ASSERT_TRUE(store_->Create(Pod("a", "p1"), Body("p1")));       // 1
    ASSERT_TRUE(store_->Create(Pod("a", "p2"), Body("p2")));       // 2
    ASSERT_TRUE(store_->Create(Pod("a", "p3"), Body("p3")));       // 3
    ASSERT_TRUE(store_->Update(Pod("a", "p1"), 0, Body("p1v2")));  // 4
    ASSERT_TRUE(store_->Delete(Pod("a", "p2"), 0, Body("p2")));    // 5
    ASSERT_TRUE(store_->Create(Pod("a", "p4"), Body("p4")));       // 6
    ASSERT_TRUE(store_->Delete(Pod("a", "p3"), 0, Body("p3")));    // 7
    ASSERT_TRUE(store_->Create(Pod("a", "p3"), Body("p3new")));    // 8
    ASSERT_TRUE(store_->Update(Pod("a", "p4"), 0, Body("p4v2")));  // 9
    ASSERT_TRUE(store_->Create({"secrets", "a", "s"}, Body("s")));  // 10: another resource
  }

  // The revisions the log holds, read from the database itself.
  std::vector<std::int64_t> LoggedRevisions() {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open((dir_ / "state.db").c_str(), &db), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "SELECT revision FROM changes ORDER BY revision", -1, &s, nullptr);
    std::vector<std::int64_t> out;
    while (sqlite3_step(s) == SQLITE_ROW) out.push_back(sqlite3_column_int64(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return out;
  }

  // What the store's compaction did before it kept each key's last entry: every entry up to
  // `through` dropped.
  void CompactTheOldWay(std::int64_t through) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / "state.db").c_str(), &db), SQLITE_OK);
    const std::string sql =
        "DELETE FROM changes WHERE revision <= " + std::to_string(through) +
        "; INSERT OR REPLACE INTO store_state(key, value) VALUES('compacted', " +
        std::to_string(through) + ")";
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
};

// Every page of a list shows the objects as they were at one revision, whatever was created,
// updated or deleted since.
TEST_F(ObjectStoreHistoryTest, APageShowsTheObjectsAsTheyWereAtItsRevision) {
  struct Case {
    const char* name;
    PageRequest request;
    std::vector<std::string> items;
    bool more;
    std::int64_t remaining;
  };
  const Case cases[] = {
      {"before any change", Pods(0, 3), {"a/p1=p1@1", "a/p2=p2@2", "a/p3=p3@3"}, false, 0},
      {"a first page", Pods(2, 3), {"a/p1=p1@1", "a/p2=p2@2"}, true, 1},
      {"the page after it", Pods(2, 3, {"a", "p2", true}), {"a/p3=p3@3"}, false, 0},
      {"updated, deleted, created", Pods(0, 6), {"a/p1=p1v2@4", "a/p3=p3@3", "a/p4=p4@6"}, false,
       0},
      {"between a delete and its re-create", Pods(0, 7), {"a/p1=p1v2@4", "a/p4=p4@6"}, false, 0},
      {"a count at a revision", Pods(1, 6), {"a/p1=p1v2@4"}, true, 2},
      {"the newest", Pods(0, 9), {"a/p1=p1v2@4", "a/p3=p3new@8", "a/p4=p4v2@9"}, false, 0},
      {"the newest, asked for as 0", Pods(0), {"a/p1=p1v2@4", "a/p3=p3new@8", "a/p4=p4v2@9"},
       false, 0},
  };
  for (const auto& c : cases) {
    auto page = store_->ListPage(c.request);
    ASSERT_TRUE(page) << c.name << ": " << page.error().Message();
    EXPECT_EQ(Items(*page), c.items) << c.name;
    EXPECT_EQ(page->more, c.more) << c.name;
    EXPECT_EQ(page->remaining, c.remaining) << c.name;
    EXPECT_EQ(page->revision, c.request.revision == 0 ? 10 : c.request.revision) << c.name;
  }
  auto ahead = store_->ListPage(Pods(0, 11));
  ASSERT_FALSE(ahead);
  EXPECT_EQ(ahead.error().reason, kResourceVersionTooLarge);
  EXPECT_EQ(ahead.error().Message(), "revision 11 is newer than the store's (10)");
}

// etcd's compaction: each key's newest entry at or before the compaction revision stays (unless
// it is a DELETED), so every revision from there on can still be listed; watches from before
// it are Gone as they were.
TEST_F(ObjectStoreHistoryTest, CompactionKeepsWhatLaterRevisionsAreBuiltFrom) {
  ASSERT_TRUE(store_->Compact(3));  // through revision 7
  EXPECT_EQ(*store_->CompactedRevision(), 7);
  // p1's update (4) and p4's create (6) stay; p2 and p3 end in DELETEs at or before 7.
  EXPECT_EQ(LoggedRevisions(), (std::vector<std::int64_t>{4, 6, 8, 9, 10}));
  auto at_7 = store_->ListPage(Pods(0, 7));
  ASSERT_TRUE(at_7) << at_7.error().Message();
  EXPECT_EQ(Items(*at_7), (std::vector<std::string>{"a/p1=p1v2@4", "a/p4=p4@6"}));
  auto at_8 = store_->ListPage(Pods(0, 8));
  ASSERT_TRUE(at_8) << at_8.error().Message();
  EXPECT_EQ(Items(*at_8), (std::vector<std::string>{"a/p1=p1v2@4", "a/p3=p3new@8", "a/p4=p4@6"}));
  auto at_6 = store_->ListPage(Pods(0, 6));
  ASSERT_FALSE(at_6);
  EXPECT_EQ(at_6.error().reason, kExpired);
  EXPECT_EQ(at_6.error().Message(), "revision 6 is compacted (7)");
  // Watches see no difference: from 7 on, the changes after it; before, Gone.
  auto watched = store_->ChangesSince("pods", "", true, 7);
  ASSERT_TRUE(watched);
  ASSERT_EQ(watched->size(), 2u);
  EXPECT_EQ((*watched)[0].object.revision, 8);
  EXPECT_EQ(store_->ChangesSince("pods", "", true, 6).error().reason, kExpired);
  // Compacting again past the kept entries drops those whose key changed since.
  ASSERT_TRUE(store_->Compact(0));  // through 10
  EXPECT_EQ(LoggedRevisions(), (std::vector<std::int64_t>{4, 8, 9, 10}));
  auto at_10 = store_->ListPage(Pods(0, 10));
  ASSERT_TRUE(at_10);
  EXPECT_EQ(Items(*at_10),
            (std::vector<std::string>{"a/p1=p1v2@4", "a/p3=p3new@8", "a/p4=p4v2@9"}));
}

// A store whose log was compacted before it kept each key's last entry: where a page needs an
// object's state from before the compaction, the log cannot give it, and the page is Gone;
// pages that do not need one are served.
TEST_F(ObjectStoreHistoryTest, ALogCompactedTheOldWayIsGoneWhereItCannotTell) {
  CompactTheOldWay(3);
  struct Case {
    const char* name;
    PageRequest request;
    std::optional<std::vector<std::string>> items;  // nullopt: kGone
  };
  const Case cases[] = {
      // p1 was updated at 4 and its entry of 1 is gone.
      {"p1 before its update", Pods(0, 3), std::nullopt},
      // p2 was deleted at 5 and its ADDED is gone.
      {"p2 before its delete", Pods(0, 4, {"a", "p1", true}), std::nullopt},
      // p3 was deleted at 7 and its ADDED (3) is gone.
      {"p3 before its delete", Pods(0, 6, {"a", "p3", false}), std::nullopt},
      // After every change to what was there before the compaction: the table and the log say.
      {"after those changes", Pods(0, 7), std::vector<std::string>{"a/p1=p1v2@4", "a/p4=p4@6"}},
      // p4 came after the compaction: its ADDED says it was not there before.
      {"a key added later", Pods(0, 5, {"a", "p4", false}), std::vector<std::string>{}},
  };
  for (const auto& c : cases) {
    auto page = store_->ListPage(c.request);
    if (!c.items) {
      ASSERT_FALSE(page) << c.name;
      EXPECT_EQ(page.error().reason, kExpired) << c.name;
      EXPECT_EQ(*store_->CompactedRevision(), 3) << c.name;  // what a caller asks the store
      continue;
    }
    ASSERT_TRUE(page) << c.name << ": " << page.error().Message();
    EXPECT_EQ(Items(*page), *c.items) << c.name;
  }
  // An object the log cannot tell past the end of a page only says that more follow: it was
  // there (its first change after the revision was an update or a delete).
  auto before_them = store_->ListPage(Pods(1, 4));
  ASSERT_TRUE(before_them) << before_them.error().Message();
  EXPECT_EQ(Items(*before_them), (std::vector<std::string>{"a/p1=p1v2@4"}));
  EXPECT_TRUE(before_them->more);
  EXPECT_EQ(before_them->remaining, 2);  // p2 and p3
  auto gone = store_->ListPage(Pods(0, 3));
  EXPECT_EQ(gone.error().Message(),
            "the change log cannot say what pods \"a/p1\" was at revision 3: its last write "
            "before it was compacted away");
}

// Every write the store acknowledged is there after the process that made it is killed with
// SIGKILL in the middle of writing.
TEST_F(ObjectStoreTest, AcknowledgedWritesSurviveKill9) {
  store_.reset();
  int acks[2];
  ASSERT_EQ(pipe(acks), 0);
  const std::string path = (dir_ / "state.db").string();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(acks[0]);
    auto s = ObjectStore::Open(path);
    if (!s) _exit(2);
    for (int i = 0;; ++i) {
      auto r = (*s)->Create(Pod("default", "p" + std::to_string(i)), Body("x"));
      if (!r) _exit(3);
      const std::string line = std::to_string(i) + "\n";
      if (write(acks[1], line.data(), line.size()) < 0) _exit(4);
    }
  }
  close(acks[1]);
  FILE* in = fdopen(acks[0], "r");
  ASSERT_NE(in, nullptr);
  int last = -1;
  char line[32];
  while (last < 200 && fgets(line, sizeof line, in) != nullptr) last = std::atoi(line);
  kill(child, SIGKILL);
  // Acknowledgements already in the pipe count too.
  while (fgets(line, sizeof line, in) != nullptr) last = std::atoi(line);
  fclose(in);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  ASSERT_GE(last, 200);

  Reopen();
  auto all = store_->List("pods", "", true);
  ASSERT_TRUE(all);
  EXPECT_GE(static_cast<int>(all->items.size()), last + 1);
  for (int i = 0; i <= last; ++i) {
    EXPECT_TRUE(store_->Get(Pod("default", "p" + std::to_string(i)))) << i;
  }
  // And the store goes on writing where it stopped.
  auto next = store_->Create(Pod("default", "after"), Body("y"));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->revision, static_cast<std::int64_t>(all->items.size()) + 1);
}

namespace fs = std::filesystem;

fs::perms ModeOf(const fs::path& file) { return fs::status(file).permissions() & fs::perms::all; }

constexpr fs::perms kOwnerOnly = fs::perms::owner_read | fs::perms::owner_write;

// The store holds Secrets: its database, -wal and -shm are 0600 whatever the umask, also when
// SQLite makes the -wal and -shm, and a store made 0644 before is tightened when opened.
TEST_F(ObjectStoreTest, FilesAreTheOwnersAlone) {
  struct Umask {
    mode_t before = ::umask(022);  // SQLite alone would make its files 0644
    ~Umask() { ::umask(before); }
  } umask;
  ASSERT_TRUE(store_->Create(Pod("default", "a"), Body("a")));  // the -wal and -shm now exist
  for (const char* name : {"state.db", "state.db-wal", "state.db-shm"}) {
    ASSERT_TRUE(fs::exists(dir_ / name)) << name;
    EXPECT_EQ(ModeOf(dir_ / name), kOwnerOnly) << name;
  }
  // A store made before the rule, closed: it left only state.db, whose -wal and -shm of a
  // running node empty files stand for.
  store_.reset();
  dir_.Write("state.db-wal", "");
  dir_.Write("state.db-shm", "");
  for (const char* name : {"state.db", "state.db-wal", "state.db-shm"}) {
    ASSERT_EQ(::chmod((dir_ / name).c_str(), 0644), 0);
  }
  Reopen();
  ASSERT_TRUE(store_->Create(Pod("default", "b"), Body("b")));
  for (const char* name : {"state.db", "state.db-wal", "state.db-shm"}) {
    EXPECT_EQ(ModeOf(dir_ / name), kOwnerOnly) << name;
  }
}

// A store of a few thousand rows, closed (so that everything is in the main file).
void WriteStore(const fs::path& path) {
  auto store = ObjectStore::Open(path);
  ASSERT_TRUE(store);
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE((*store)->Create(Pod("default", "p" + std::to_string(i)), [](std::int64_t rv) {
      return std::string(600, 'x') + std::to_string(rv);
    }));
  }
}

// Overwrites the page in the middle of the file with random bytes: what a bad disk block or a
// stray write does.
void DamageMiddlePage(const fs::path& path) {
  constexpr std::uintmax_t kPage = 4096;
  std::mt19937 random(7);
  std::string garbage(kPage, '\0');
  for (char& c : garbage) c = static_cast<char>(random());
  FILE* f = std::fopen(path.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  std::fseek(f, static_cast<long>(fs::file_size(path) / kPage / 2 * kPage), SEEK_SET);
  std::fwrite(garbage.data(), 1, garbage.size(), f);
  std::fclose(f);
}

TEST(ObjectStoreIntegrity, ADamagedFileIsRefusedWithTheChecksFirstLines) {
  struct Case {
    const char* name;
    IntegrityCheck check;
    bool damaged;
    bool refused;
    const char* pragma;  // what the refusal names
  };
  const Case cases[] = {
      {"sound, quick check", IntegrityCheck::kQuick, false, false, ""},
      {"sound, full check", IntegrityCheck::kFull, false, false, ""},
      {"a damaged page, quick check", IntegrityCheck::kQuick, true, true, "PRAGMA quick_check"},
      {"a damaged page, full check", IntegrityCheck::kFull, true, true, "PRAGMA integrity_check"},
      {"a damaged page, no check: opens (every read then fails)", IntegrityCheck::kNone, true,
       false, ""},
  };
  for (const auto& c : cases) {
    podlimits::testing::TempDir dir("podlimits-store-check");
    const fs::path path = dir / "state.db";
    WriteStore(path);
    if (c.damaged) DamageMiddlePage(path);
    auto opened = ObjectStore::Open(path, {c.check});
    if (!c.refused) {
      EXPECT_TRUE(opened) << c.name << ": " << opened.error().Message();
      continue;
    }
    ASSERT_FALSE(opened) << c.name;
    EXPECT_EQ(opened.error().reason, kCorrupt) << c.name;
    const std::string message = opened.error().Message();
    // What the check found, line by line; when it cannot go on past a page, SQLite's error.
    EXPECT_THAT(message, ::testing::StartsWith(std::string(c.pragma) + " \"" + path.string() +
                                               "\": the database is damaged:\n  "))
        << c.name;
    EXPECT_THAT(message, ::testing::AnyOf(::testing::HasSubstr("\n  *** in database main ***"),
                                          ::testing::HasSubstr("database disk image is malformed")))
        << c.name;
    // At most the first ten lines of what the check found, and SQLite's error.
    EXPECT_LE(std::count(message.begin(), message.end(), '\n'), 11) << c.name << "\n" << message;
  }
}

// A file SQLite does not take for a database at all is kCorrupt too, whatever the check.
TEST(ObjectStoreIntegrity, NotADatabaseIsCorrupt) {
  podlimits::testing::TempDir dir("podlimits-store-check");
  dir.Write("state.db", std::string(8192, 'g'));
  auto opened = ObjectStore::Open(dir / "state.db");
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().reason, kCorrupt);
  EXPECT_EQ(opened.error().Message(),
            "PRAGMA journal_mode=WAL \"" + (dir / "state.db").string() +
                "\": file is not a database");
}

TEST_F(ObjectStoreTest, IdentityIsWrittenOnceAndKept) {
  auto none = store_->Identity();
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, 0u);
  ASSERT_TRUE(store_->SetIdentity(0xfeedfacecafebeefULL));  // above INT64_MAX: kept as it is
  Reopen();
  EXPECT_EQ(*store_->Identity(), 0xfeedfacecafebeefULL);
  EXPECT_EQ(*store_->Revision(), 0) << "the identity is no write of an object";
}

}  // namespace
}  // namespace podlimits::storage
