// Backups of a node's store: taken while it is written, they hold one commit's state whole; the
// file is 0600, self-contained (no -wal), and only there once complete.
#include "storage/store_backup.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <thread>

#include "storage/object_store.h"
#include "temp_dir.h"

namespace podlimits::storage {
namespace {

namespace fs = std::filesystem;

constexpr fs::perms kOwnerOnly = fs::perms::owner_read | fs::perms::owner_write;

Render Text(std::string text) {
  return [text](std::int64_t rv) { return text + std::to_string(rv); };
}

TEST(StoreBackup, TakenWhileTheStoreIsWrittenItHoldsOneCommitWhole) {
  podlimits::testing::TempDir dir("podlimits-backup");
  auto store = ObjectStore::Open(dir / "state.db");
  ASSERT_TRUE(store);
  ASSERT_TRUE((*store)->SetIdentity(42));
  std::atomic<bool> stop{false};
  std::atomic<int> written{0};
  // Serve's part: creates, one commit each, until the backup is done.
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) {
      if ((*store)->Create({"secrets", "default", "s" + std::to_string(i)}, Text("secret-"))) {
        ++written;
      }
    }
  });
  while (written < 500) std::this_thread::yield();
  auto backup = BackupStore(dir / "state.db", dir / "backup.db");
  stop = true;
  writer.join();
  ASSERT_TRUE(backup) << backup.error();
  EXPECT_GE(backup->objects, 500);
  EXPECT_LE(backup->objects, written.load());
  // Creates only: the commit at revision R holds exactly R objects.
  EXPECT_EQ(backup->revision, backup->objects);
  EXPECT_EQ(backup->bytes, fs::file_size(dir / "backup.db"));
  EXPECT_EQ(fs::status(dir / "backup.db").permissions() & fs::perms::all, kOwnerOnly);
  for (const char* leftover : {"backup.db.tmp", "backup.db.tmp-journal", "backup.db-wal",
                               "backup.db-shm", "backup.db-journal"}) {
    EXPECT_FALSE(fs::exists(dir / leftover)) << leftover;
  }
  // Self-contained: the copy alone, read as the store, holds those objects and the identity.
  fs::create_directories(dir / "restored");
  fs::copy_file(dir / "backup.db", dir / "restored/state.db");
  auto restored = ObjectStore::Open(dir / "restored/state.db", {IntegrityCheck::kFull});
  ASSERT_TRUE(restored) << restored.error();
  EXPECT_EQ(*(*restored)->Revision(), backup->revision);
  EXPECT_EQ((*restored)->List("secrets", "", true)->items.size(),
            static_cast<std::size_t>(backup->objects));
  EXPECT_EQ(*(*restored)->Identity(), 42u);
  EXPECT_EQ((*restored)->Get({"secrets", "default", "s0"})->data, "secret-1");
}

// Serve stopped: the store is only its state.db. The backup still reads it, and any file it
// makes beside it for reading is the owner's alone.
TEST(StoreBackup, OfAStoppedNode) {
  podlimits::testing::TempDir dir("podlimits-backup");
  {
    auto store = ObjectStore::Open(dir / "state.db");
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->Create({"secrets", "default", "s"}, Text("x")));
  }
  ASSERT_FALSE(fs::exists(dir / "state.db-wal"));
  auto backup = BackupStore(dir / "state.db", dir / "backup.db");
  ASSERT_TRUE(backup) << backup.error();
  EXPECT_EQ(backup->objects, 1);
  EXPECT_EQ(backup->revision, 1);
  for (const char* made : {"state.db-wal", "state.db-shm"}) {
    if (fs::exists(dir / made)) {
      EXPECT_EQ(fs::status(dir / made).permissions() & fs::perms::all, kOwnerOnly) << made;
    }
  }
}

TEST(StoreBackup, AFailedBackupLeavesNothingAndKeepsTheLastOne) {
  podlimits::testing::TempDir dir("podlimits-backup");
  dir.Write("backup.db", "the last good backup");
  struct Case {
    const char* name;
    std::function<void()> prepare;
    std::string error;
  };
  const std::string store = (dir / "node/state.db").string();
  const Case cases[] = {
      {"no store", [] {},
       "stat \"" + store + "\": No such file or directory: no store to back up (is --data-dir the "
                           "node's?)"},
      {"a database that is not a node's store",
       [&] {
         fs::create_directories(dir / "node");
         sqlite3* db = nullptr;
         sqlite3_open(store.c_str(), &db);
         sqlite3_exec(db, "CREATE TABLE other(x)", nullptr, nullptr, nullptr);
         sqlite3_close(db);
       },
       "back up \"" + store + "\": not a node's store: it has no objects table"},
      {"not a database",
       [&] { podlimits::testing::WriteText(store, std::string(8192, 'g')); },
       "read \"" + store + "\": file is not a database"},
  };
  for (const auto& c : cases) {
    c.prepare();
    auto backup = BackupStore(store, dir / "backup.db");
    ASSERT_FALSE(backup) << c.name;
    EXPECT_EQ(backup.error().Message(), c.error) << c.name;
    EXPECT_EQ(podlimits::testing::ReadText(dir / "backup.db"), "the last good backup") << c.name;
    EXPECT_FALSE(fs::exists(dir / "backup.db.tmp")) << c.name;
    EXPECT_FALSE(fs::exists(dir / "backup.db.tmp-journal")) << c.name;
  }
}

}  // namespace
}  // namespace podlimits::storage
