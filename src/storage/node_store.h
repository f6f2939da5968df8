// The node's store as `podlimits serve` opens it at start, and what serve refuses to start on.
//
// A node is its store: its pods, Secrets and ConfigMaps live in DATA_DIR/state.db. Started on an
// empty store, the node agent stops and deletes every pod it finds running (none is in the
// store) with its logs, so a lost store must never pass for a new node:
//
//   1. The marker. The first start writes DATA_DIR/store-id, naming the store it created: a
//      random 64-bit identity, also written into the store (ObjectStore::Identity). Its being
//      there says a node lived in this directory.
//   2. A lost store: state.db missing, empty (0 bytes) or a database without the store's tables,
//      in a data directory that shows a node was there (the marker, pki/, pods/). Refused, with
//      what was found and the two ways on: restore a backup (store_backup.h), or start afresh on
//      purpose (`reinitialize`, serve's --reinitialize-store), which moves what is left of the
//      old store aside as state.db.lost-TIME (its -wal and -shm beside it) and starts on an empty
//      one. A data directory showing none of them is a new node's: the store is created.
//   3. A damaged store: the integrity check (quick_check by default) fails, or SQLite cannot read
//      the file as a database. Refused with the check's first lines and the same two ways on
//      (`reinitialize` moves it aside as state.db.corrupt-TIME).
//   4. A backup put in place beside the old store's -wal: refused (a backup is in rollback
//      journal mode; the store always runs in WAL mode). SQLite would replay that -wal over the
//      backup and, with no error, leave the lost store's last state instead of the backup's.
//   5. Another store: one whose identity is not the marker's (a backup of another node, or from
//      before a reinitialization, put in place). Accepted, since restoring a backup is how a node
//      comes back, with a notice; the marker then names it. A store without an identity (made
//      before the marker existed) is given one.
//
// `reinitialize` on a sound store changes nothing (a notice says so): the flag left in a unit
// file must not wipe a node at every restart.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/object_store.h"
#include "base/error.h"

namespace podlimits::storage {

inline constexpr std::string_view kStoreFileName = "state.db";
inline constexpr std::string_view kStoreMarkerFileName = "store-id";

struct NodeStoreOptions {
  std::filesystem::path data_dir;
  IntegrityCheck integrity_check = IntegrityCheck::kQuick;
  bool reinitialize = false;  // start on an empty store when the node's is lost or damaged
};

struct NodeStore {
  std::unique_ptr<ObjectStore> store;
  std::vector<std::string> notices;  // what the start did that the operator should hear of
};

// Opens the store of the node in `options.data_dir` as described above; the error of a refusal
// says what is wrong, what was found, and how to go on.
Result<NodeStore> OpenNodeStore(const NodeStoreOptions& options);

// The identity a marker file names ("" and comment lines starting with '#' aside, one
// 16-digit hexadecimal number), or nullopt when it names none. The marker's own format, public
// for the tests.
std::optional<std::uint64_t> ParseStoreMarker(std::string_view text);
std::string FormatStoreMarker(std::uint64_t identity);

}  // namespace podlimits::storage
