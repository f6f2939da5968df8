// The node's store at serve's start: a new data directory gets a store and a marker; a lost,
// empty or damaged store in a directory that held a node is refused with the ways on; a restored
// backup is accepted; --reinitialize-store starts afresh and keeps what was left aside.
#include "storage/node_store.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "storage/store_backup.h"
#include "temp_dir.h"

namespace podlimits::storage {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

Render Text(std::string text) {
  return [text](std::int64_t) { return text; };
}

// A node's store as serve leaves it: objects written, identity set, marker written; closed.
std::uint64_t MakeNode(const fs::path& data_dir, int objects = 3) {
  fs::create_directories(data_dir);  // as serve makes it
  auto node = OpenNodeStore({data_dir});
  EXPECT_TRUE(node) << node.error();
  if (!node) return 0;
  for (int i = 0; i < objects; ++i) {
    EXPECT_TRUE(node->store->Create({"secrets", "default", "s" + std::to_string(i)}, Text("{}")));
  }
  fs::create_directories(data_dir / "pki");
  return *node->store->Identity();
}

std::size_t Objects(ObjectStore& store) {
  auto listed = store.List("secrets", "", true);
  return listed ? listed->items.size() : 0;
}

std::optional<std::uint64_t> Marker(const fs::path& data_dir) {
  std::ifstream in(data_dir / "store-id");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return ParseStoreMarker(text);
}

std::vector<std::string> Named(const fs::path& dir, std::string_view prefix) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename();
    if (name.starts_with(prefix)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void RemoveStoreFiles(const fs::path& data_dir) {
  for (const char* f : {"state.db", "state.db-wal", "state.db-shm"}) fs::remove(data_dir / f);
}

// Refused starts: nothing is created or changed, and the message says what was found.
TEST(NodeStore, ALostStoreInADirectoryThatHeldANodeIsRefused) {
  struct Case {
    const char* name;
    std::function<void(const fs::path&)> leave;  // what is left of the node besides its store
    std::string what;                             // how the store is described
    std::string found;                            // what the directory shows of the node
  };
  const Case cases[] = {
      {"store removed, the certificates left",
       [](const fs::path& d) {
         MakeNode(d);
         RemoveStoreFiles(d);
         fs::remove(d / "store-id");
       },
       "is missing", "pki/ (its certificates) is there"},
      {"store removed, pods left",
       [](const fs::path& d) {
         MakeNode(d);
         RemoveStoreFiles(d);
         fs::remove(d / "store-id");
         fs::remove_all(d / "pki");
         fs::create_directories(d / "pods/uid-1");
         fs::create_directories(d / "pods/uid-2");
       },
       "is missing", "pods/ holds 2 pods"},
      {"store removed, only the marker left",
       [](const fs::path& d) {
         MakeNode(d);
         RemoveStoreFiles(d);
         fs::remove_all(d / "pki");
       },
       "is missing", "store-id names store"},
      {"store zeroed",
       [](const fs::path& d) {
         MakeNode(d);
         fs::resize_file(d / "state.db", 0);
       },
       "is empty (0 bytes)", "pki/ (its certificates) is there"},
      {"a database without the store's tables",
       [](const fs::path& d) {
         MakeNode(d);
         RemoveStoreFiles(d);
         sqlite3* db = nullptr;
         sqlite3_open((d / "state.db").c_str(), &db);
         sqlite3_exec(db, "CREATE TABLE other(x)", nullptr, nullptr, nullptr);
         sqlite3_close(db);
       },
       "holds none of the store's tables", "pki/ (its certificates) is there"},
  };
  for (const auto& c : cases) {
    podlimits::testing::TempDir dir("podlimits-node-store");
    const fs::path data = dir / "node";
    c.leave(data);
    const auto before = fs::exists(data / "state.db") ? fs::file_size(data / "state.db") : 0;
    auto opened = OpenNodeStore({data});
    ASSERT_FALSE(opened) << c.name;
    const std::string message = opened.error().Message();
    EXPECT_THAT(message, StartsWith("refusing to start: the node's store " +
                                    (data / "state.db").string() + " " + c.what + ", but " +
                                    data.string() + " held a node: "))
        << c.name;
    EXPECT_THAT(message, HasSubstr(c.found)) << c.name;
    EXPECT_THAT(message, HasSubstr("--reinitialize-store")) << c.name;
    EXPECT_THAT(message, HasSubstr("To restore a backup")) << c.name;
    // Nothing touched: no store made, a zeroed one left as it is.
    EXPECT_EQ(fs::exists(data / "state.db") ? fs::file_size(data / "state.db") : 0, before)
        << c.name;
    EXPECT_EQ(Named(data, "state.db"),
              fs::exists(data / "state.db") ? std::vector<std::string>{"state.db"}
                                            : std::vector<std::string>{})
        << c.name;
  }
}

TEST(NodeStore, TheRefusalSaysWhatWasFoundAndTheWaysOn) {
  podlimits::testing::TempDir dir("podlimits-node-store");
  const fs::path data = dir / "node";
  const std::uint64_t id = MakeNode(data);
  fs::create_directories(data / "pods/uid-1");
  RemoveStoreFiles(data);
  auto opened = OpenNodeStore({data});
  ASSERT_FALSE(opened);
  const std::string db = (data / "state.db").string();
  EXPECT_EQ(opened.error().Message(),
            "refusing to start: the node's store " + db + " is missing, but " + data.string() +
                " held a node: store-id names store " + fmt::format("{:016x}", id) +
                ", pki/ (its certificates) is there and pods/ holds 1 pod. On an empty store "
                "the node would stop and delete its running pods and their logs, and its "
                "objects (Secrets, ConfigMaps, ...) would be gone.\n"
                "  To restore a backup (podlimits serve backup): put it in place as " + db +
                ", remove " + db + "-wal and " + db +
                "-shm, and start serve again (docs/serve.md, \"Backing up and restoring a "
                "node\").\n"
                "  To start afresh on purpose, losing every object of the node and stopping its "
                "pods: start serve once with --reinitialize-store (what is left of the old store "
                "is kept as state.db.lost-TIME).");
}

TEST(NodeStore, ANewDataDirectoryGetsAStoreAndItsMarker) {
  for (const char* before : {"nothing", "images only (image load before the first start)"}) {
    podlimits::testing::TempDir dir("podlimits-node-store");
    const fs::path data = dir / "node";
    if (std::string_view(before) != "nothing") fs::create_directories(data / "images");
    fs::create_directories(data);
    auto opened = OpenNodeStore({data});
    ASSERT_TRUE(opened) << before << ": " << opened.error();
    EXPECT_TRUE(opened->notices.empty()) << before;
    const std::uint64_t id = *opened->store->Identity();
    EXPECT_NE(id, 0u) << before;
    EXPECT_EQ(Marker(data), id) << before;
    EXPECT_EQ(fs::status(data / "store-id").permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
    opened->store.reset();
    // The next start finds its own store.
    auto again = OpenNodeStore({data});
    ASSERT_TRUE(again) << again.error();
    EXPECT_TRUE(again->notices.empty());
    EXPECT_EQ(*again->store->Identity(), id);
  }
}

// A kill -9 right after the first start may leave the tables in the -wal alone (the main file
// holds only the header): that is a store, not a lost one.
TEST(NodeStore, TablesInTheWalAloneAreAStore) {
  podlimits::testing::TempDir dir("podlimits-node-store");
  const fs::path live = dir / "live", crashed = dir / "crashed";
  fs::create_directories(live);
  auto node = OpenNodeStore({live});
  ASSERT_TRUE(node);
  ASSERT_TRUE(node->store->Create({"secrets", "default", "s"}, Text("{}")));
  fs::create_directories(crashed / "pki");
  // The files as a kill -9 leaves them: copied while the store is open.
  for (const char* f : {"state.db", "state.db-wal", "store-id"}) {
    fs::copy_file(live / f, crashed / f);
  }
  auto opened = OpenNodeStore({crashed});
  ASSERT_TRUE(opened) << opened.error();
  EXPECT_EQ(Objects(*opened->store), 1u);
}

TEST(NodeStore, ADamagedStoreIsRefusedWithTheCheck) {
  podlimits::testing::TempDir dir("podlimits-node-store");
  const fs::path data = dir / "node";
  MakeNode(data, 2000);
  // A page in the middle overwritten with random bytes.
  const auto size = fs::file_size(data / "state.db");
  std::string garbage(4096, '\0');
  std::mt19937 random(3);
  for (char& c : garbage) c = static_cast<char>(random());
  std::fstream f(data / "state.db", std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(size / 4096 / 2 * 4096));
  f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  f.close();

  auto opened = OpenNodeStore({data});
  ASSERT_FALSE(opened);
  const std::string db = (data / "state.db").string();
  EXPECT_THAT(opened.error().Message(),
              StartsWith("refusing to start: the node's store is damaged: PRAGMA quick_check \"" +
                         db + "\": the database is damaged:\n  "));
  EXPECT_THAT(opened.error().Message(),
              HasSubstr("start serve once with --reinitialize-store (the damaged file is kept as "
                        "state.db.corrupt-TIME)."));

  // On purpose: the damaged file is kept aside, the node starts on an empty store.
  auto afresh = OpenNodeStore({data, IntegrityCheck::kQuick, /*reinitialize=*/true});
  ASSERT_TRUE(afresh) << afresh.error();
  EXPECT_EQ(Objects(*afresh->store), 0u);
  const auto kept = Named(data, "state.db.corrupt-");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(fs::file_size(data / kept[0]), size);
  ASSERT_EQ(afresh->notices.size(), 1u);
  EXPECT_EQ(afresh->notices[0], "--reinitialize-store: the damaged store is kept as " +
                                    (data / kept[0]).string() + "; starting on an empty store");
}

TEST(NodeStore, ReinitializeStartsAfreshOnlyWhenTheStoreIsLost) {
  podlimits::testing::TempDir dir("podlimits-node-store");
  const fs::path data = dir / "node";
  const std::uint64_t old_id = MakeNode(data);
  // A sound store: the flag changes nothing and says so.
  {
    auto sound = OpenNodeStore({data, IntegrityCheck::kQuick, true});
    ASSERT_TRUE(sound) << sound.error();
    EXPECT_EQ(Objects(*sound->store), 3u);
    EXPECT_EQ(sound->notices,
              std::vector<std::string>{"--reinitialize-store: " + (data / "state.db").string() +
                                       " is sound; nothing was reinitialized (the flag only acts "
                                       "on a lost or damaged store)"});
  }
  // Zeroed, with a -wal left beside it: both are kept aside, together.
  fs::resize_file(data / "state.db", 0);
  podlimits::testing::WriteText(data / "state.db-wal", "an old wal");
  auto afresh = OpenNodeStore({data, IntegrityCheck::kQuick, true});
  ASSERT_TRUE(afresh) << afresh.error();
  EXPECT_EQ(Objects(*afresh->store), 0u);
  const auto kept = Named(data, "state.db.lost-");
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1], kept[0] + "-wal");
  EXPECT_EQ(podlimits::testing::ReadText(data / kept[1]), "an old wal");
  const std::uint64_t new_id = *afresh->store->Identity();
  EXPECT_NE(new_id, old_id);
  EXPECT_EQ(Marker(data), new_id) << "the marker names the new store";
  afresh->store.reset();
  // Again within the same second: what was kept aside first is not replaced.
  fs::resize_file(data / "state.db", 0);
  ASSERT_TRUE(OpenNodeStore({data, IntegrityCheck::kQuick, true}));
  const auto kept_twice = Named(data, "state.db.lost-");
  EXPECT_EQ(kept_twice.size(), 3u) << ::testing::PrintToString(kept_twice);
  EXPECT_EQ(podlimits::testing::ReadText(data / kept[1]), "an old wal");
}

TEST(NodeStore, ReinitializeOnANewDataDirectoryIsAFirstStart) {
  podlimits::testing::TempDir dir("podlimits-node-store");
  auto opened = OpenNodeStore({dir.path(), IntegrityCheck::kQuick, true});
  ASSERT_TRUE(opened) << opened.error();
  EXPECT_TRUE(opened->notices.empty()) << ::testing::PrintToString(opened->notices);
  EXPECT_TRUE(Named(dir.path(), "state.db.").empty());
}

// Restoring is how a node comes back: its own backup goes in without a word; another store (a
// backup of another node, or from before a reinitialization) goes in with a notice.
TEST(NodeStore, ARestoredBackupIsAccepted) {
  podlimits::testing::TempDir dir("podlimits-node-store");
  const fs::path data = dir / "node", other = dir / "other";
  const std::uint64_t id = MakeNode(data);
  ASSERT_TRUE(BackupStore(data / "state.db", dir / "node.backup"));
  const std::uint64_t other_id = MakeNode(other, 5);
  ASSERT_TRUE(BackupStore(other / "state.db", dir / "other.backup"));

  RemoveStoreFiles(data);
  fs::copy_file(dir / "node.backup", data / "state.db");
  auto own = OpenNodeStore({data});
  ASSERT_TRUE(own) << own.error();
  EXPECT_TRUE(own->notices.empty());
  EXPECT_EQ(Objects(*own->store), 3u);
  EXPECT_EQ(*own->store->Identity(), id);
  own->store.reset();

  RemoveStoreFiles(data);
  fs::copy_file(dir / "other.backup", data / "state.db");
  auto foreign = OpenNodeStore({data});
  ASSERT_TRUE(foreign) << foreign.error();
  EXPECT_EQ(Objects(*foreign->store), 5u);
  EXPECT_EQ(foreign->notices,
            std::vector<std::string>{fmt::format(
                "{} is store {:016x}, not store {:016x} that store-id named (a backup of another "
                "node, or from before --reinitialize-store, put in place); store-id now names it",
                (data / "state.db").string(), other_id, id)});
  EXPECT_EQ(Marker(data), other_id);
}

// The restore's one trap: a -wal of the lost store left beside the backup. SQLite would replay
// it over the backup without an error (the lost store's last state, not the backup's), so it is
// refused until removed.
TEST(NodeStore, ABackupBesideTheOldStoresWalIsRefused) {
  podlimits::testing::TempDir dir("podlimits-node-store");
  const fs::path data = dir / "node";
  MakeNode(data);
  ASSERT_TRUE(BackupStore(data / "state.db", dir / "node.backup"));
  // The store as a kill -9 leaves it, with writes after the backup in its -wal.
  auto live = OpenNodeStore({data});
  ASSERT_TRUE(live);
  ASSERT_TRUE(live->store->Create({"secrets", "default", "after-backup"}, Text("{}")));
  fs::copy_file(data / "state.db-wal", dir / "wal");
  live->store.reset();
  fs::copy_file(dir / "wal", data / "state.db-wal", fs::copy_options::overwrite_existing);
  fs::rename(dir / "node.backup", data / "state.db");

  auto refused = OpenNodeStore({data});
  ASSERT_FALSE(refused);
  const std::string db = (data / "state.db").string();
  EXPECT_EQ(refused.error().Message(),
            "refusing to start: " + db + " is in rollback journal mode, as a backup is "
            "(podlimits serve backup), but " + db + "-wal is there too: it belongs to the store "
            "the backup replaces, and SQLite would replay it over the backup. Remove " + db +
            "-wal and " + db + "-shm, then start serve again.");
  EXPECT_TRUE(fs::exists(data / "state.db-wal")) << "left for the operator";

  fs::remove(data / "state.db-wal");
  fs::remove(data / "state.db-shm");
  auto restored = OpenNodeStore({data});
  ASSERT_TRUE(restored) << restored.error();
  EXPECT_EQ(Objects(*restored->store), 3u) << "the backup's objects, not the -wal's";
}

// A node that ran before the marker existed: its store has no identity and the directory no
// marker. It starts as it did, and gets both.
TEST(NodeStore, AStoreFromBeforeTheMarkerGetsOne) {
  podlimits::testing::TempDir dir("podlimits-node-store");
  const fs::path data = dir / "node";
  {
    fs::create_directories(data / "pki");
    auto old = ObjectStore::Open(data / "state.db");
    ASSERT_TRUE(old);
    ASSERT_TRUE((*old)->Create({"secrets", "default", "s"}, Text("{}")));
  }
  auto opened = OpenNodeStore({data});
  ASSERT_TRUE(opened) << opened.error();
  EXPECT_TRUE(opened->notices.empty());
  EXPECT_EQ(Objects(*opened->store), 1u);
  EXPECT_NE(*opened->store->Identity(), 0u);
  EXPECT_EQ(Marker(data), *opened->store->Identity());
}

TEST(NodeStore, MarkerFormat) {
  struct Case {
    const char* name;
    std::string text;
    std::optional<std::uint64_t> want;
  };
  const Case cases[] = {
      {"as written", FormatStoreMarker(0x00ab00cd00ef0012ULL), 0x00ab00cd00ef0012ULL},
      {"no comment, no newline", "feedfacecafebeef", 0xfeedfacecafebeefULL},
      {"CRLF", "# x\r\nfeedfacecafebeef\r\n", 0xfeedfacecafebeefULL},
      {"empty", "", std::nullopt},
      {"too short", "abc\n", std::nullopt},
      {"not hex", "feedfacecafebeeg\n", std::nullopt},
      {"two identities", "feedfacecafebeef\nfeedfacecafebeef\n", std::nullopt},
      {"zero", "0000000000000000\n", std::nullopt},
  };
  for (const auto& c : cases) EXPECT_EQ(ParseStoreMarker(c.text), c.want) << c.name;
  EXPECT_EQ(FormatStoreMarker(0x00ab00cd00ef0012ULL),
            "# podlimits serve: the store this node created; its state.db carries the same "
            "identity (docs/serve.md)\n00ab00cd00ef0012\n");
}

}  // namespace
}  // namespace podlimits::storage
