// A backup of a node's store (`podlimits serve backup --data-dir DIR FILE`), taken while serve
// runs or not.
//
// SQLite's online backup API copies the database page by page from a read-only connection, in
// one read transaction: the copy is the store as of one commit, however much serve writes
// meanwhile (WAL mode lets a reader and the writer go on side by side), and no lock of serve's
// (serve.lock) is taken. The copy is written to FILE.tmp (0600: the store holds Secrets), checked
// (PRAGMA quick_check), turned into a self-contained file (rollback journal mode, no -wal of its
// own), fsynced, and renamed to FILE, whose directory is fsynced too: FILE is a whole backup or
// is not there (an older FILE stays until the new one replaces it).
//
// Restoring is putting FILE in place as state.db while serve is stopped, with the old -wal and
// -shm removed (docs/serve.md, "Backing up and restoring a node"); serve accepts a restored store
// (node_store.h).
#pragma once

#include <cstdint>
#include <filesystem>

#include "base/error.h"

namespace podlimits::storage {

struct StoreBackup {
  std::int64_t revision = 0;  // the store's revision the copy holds
  std::int64_t objects = 0;
  std::uintmax_t bytes = 0;  // FILE's size
};

// Copies the store at `store` (a node's state.db) to `out`.
Result<StoreBackup> BackupStore(const std::filesystem::path& store,
                                const std::filesystem::path& out);

}  // namespace podlimits::storage
