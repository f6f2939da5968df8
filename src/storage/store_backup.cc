#include "storage/store_backup.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/unique_fd.h"

namespace podlimits::storage {
namespace {

namespace fs = std::filesystem;

// How long a step that finds the source busy (SQLite's WAL recovery by another connection) is
// retried before the backup gives up.
constexpr auto kBusyRetry = std::chrono::milliseconds(50);
constexpr int kBusyRetries = 200;

// A connection, closed on scope exit.
class Connection {
 public:
  Connection() = default;
  ~Connection() { Close(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int Open(const fs::path& path, int flags) {
    const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
    if (db_ != nullptr) sqlite3_busy_timeout(db_, 5000);
    return rc;
  }
  int Close() {
    const int rc = sqlite3_close(db_);
    db_ = nullptr;
    return rc;
  }
  sqlite3* get() const { return db_; }
  std::string Message() const { return db_ ? sqlite3_errmsg(db_) : "out of memory"; }

  // The first column of each row `sql` answers, as text; nullopt when it fails.
  std::optional<std::vector<std::string>> Rows(std::string_view sql) const {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
        SQLITE_OK) {
      return std::nullopt;
    }
    std::vector<std::string> rows;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      rows.emplace_back(text ? text : "");
    }
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE) return std::nullopt;
    return rows;
  }

 private:
  sqlite3* db_ = nullptr;
};

std::unexpected<Error> SqliteFailure(std::string op, const fs::path& path, const Connection& db) {
  return Failure(std::move(op), path, db.Message());
}

// The temporary copy and whatever SQLite made beside it.
void RemoveTemporary(const fs::path& tmp) {
  for (std::string_view suffix : {"", "-journal", "-wal", "-shm"}) {
    ::unlink((tmp.string() + std::string(suffix)).c_str());
  }
}

Result<void> Fsync(const fs::path& path, int flags) {
  UniqueFd fd(::open(path.c_str(), flags | O_CLOEXEC));
  if (!fd) return SystemError("open", path, errno);
  if (::fsync(fd.get()) != 0) return SystemError("fsync", path, errno);
  return {};
}

// Copies `source` into the empty database at `tmp` and leaves it checked and self-contained.
Result<StoreBackup> CopyInto(const fs::path& source_path, const fs::path& tmp) {
  Connection source;
  if (source.Open(source_path, SQLITE_OPEN_READONLY) != SQLITE_OK) {
    return SqliteFailure("open", source_path, source);
  }
  auto tables = source.Rows(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND "
      "name = 'objects'");
  if (!tables) return SqliteFailure("read", source_path, source);
  if (tables->empty()) {
    return Failure("back up", source_path, "not a node's store: it has no objects table");
  }
  Connection copy;
  if (copy.Open(tmp, SQLITE_OPEN_READWRITE) != SQLITE_OK) return SqliteFailure("open", tmp, copy);
  sqlite3_backup* backup = sqlite3_backup_init(copy.get(), "main", source.get(), "main");
  if (backup == nullptr) return SqliteFailure("back up", source_path, copy);
  // Every page in one step: one read transaction, so one commit's state.
  int rc = sqlite3_backup_step(backup, -1);
  for (int i = 0; (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && i < kBusyRetries; ++i) {
    std::this_thread::sleep_for(kBusyRetry);
    rc = sqlite3_backup_step(backup, -1);
  }
  sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) {
    return Failure("back up", source_path, std::string(sqlite3_errstr(rc)));
  }
  source.Close();
  // The copy has the store's WAL mode; a backup is one file that any SQLite reads as it is.
  if (!copy.Rows("PRAGMA journal_mode=DELETE")) return SqliteFailure("journal_mode", tmp, copy);
  auto check = copy.Rows("PRAGMA quick_check(10)");
  if (!check) return SqliteFailure("PRAGMA quick_check", tmp, copy);
  if (check->size() != 1 || (*check)[0] != "ok") {
    std::string found;
    for (const auto& line : *check) found += "\n  " + line;
    return Failure("PRAGMA quick_check", tmp,
                   "the copy is damaged (so is the store it was copied from):" + found);
  }
  StoreBackup out;
  auto objects = copy.Rows("SELECT count(*) FROM objects");
  auto revision = copy.Rows("SELECT seq FROM sqlite_sequence WHERE name = 'changes'");
  if (!objects || objects->size() != 1 || !revision) return SqliteFailure("read", tmp, copy);
  out.objects = std::stoll((*objects)[0]);
  out.revision = revision->empty() ? 0 : std::stoll((*revision)[0]);
  if (copy.Close() != SQLITE_OK) return Failure("close", tmp, "the copy did not close");
  return out;
}

}  // namespace

Result<StoreBackup> BackupStore(const fs::path& store, const fs::path& out) {
  struct stat st {};
  if (::stat(store.c_str(), &st) != 0) {
    return SystemError("stat", store, errno, "no store to back up (is --data-dir the node's?)");
  }
  const fs::path tmp = out.string() + ".tmp";
  RemoveTemporary(tmp);  // a backup that failed half-way left it
  {
    // 0600 before it holds anything; SQLite gives its journal the same mode.
    UniqueFd file(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (!file) return SystemError("create", tmp, errno);
    if (::fchmod(file.get(), 0600) != 0) {
      const int err = errno;
      RemoveTemporary(tmp);
      return SystemError("chmod", tmp, err);
    }
  }
  auto copied = CopyInto(store, tmp);
  if (copied) {
    if (auto synced = Fsync(tmp, O_RDONLY); !synced) copied = std::unexpected(synced.error());
  }
  if (copied && ::rename(tmp.c_str(), out.c_str()) != 0) {
    copied = SystemError("rename", tmp, errno, "to " + out.string());
  }
  if (!copied) {
    RemoveTemporary(tmp);
    return copied;
  }
  // The rename itself outlives a power cut once the directory is on disk.
  const fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (auto synced = Fsync(dir, O_RDONLY | O_DIRECTORY); !synced) {
    return std::unexpected(synced.error());
  }
  std::error_code ec;
  copied->bytes = fs::file_size(out, ec);
  return copied;
}

}  // namespace podlimits::storage
