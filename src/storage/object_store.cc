#include "storage/object_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <utility>

#include "base/unique_fd.h"
#include "storage/sqlite_statement.h"

namespace podlimits::storage {

namespace fs = std::filesystem;

using sqlite::CompactedThrough;
using sqlite::CurrentRevision;
using sqlite::Describe;
using sqlite::Exec;
using sqlite::Internal;
using sqlite::Statement;
using sqlite::Transaction;

namespace {

constexpr std::string_view kSchema = R"sql(
CREATE TABLE IF NOT EXISTS objects(
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  revision INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (resource, namespace, name)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS changes(
  revision INTEGER PRIMARY KEY AUTOINCREMENT,
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  type INTEGER NOT NULL,
  data BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS changes_by_resource ON changes(resource, revision);
CREATE INDEX IF NOT EXISTS changes_by_key ON changes(resource, namespace, name, revision);
CREATE TABLE IF NOT EXISTS store_state(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
)sql";

// The database, its -wal and its -shm: the owner's alone. The database is made here (empty,
// which SQLite takes as a new database) so that it never exists with a wider mode; SQLite gives
// the -wal and -shm it makes later the database's mode. Existing files are tightened: a store
// made before this rule was 0644.
Result<void> RestrictStoreFiles(const fs::path& path) {
  UniqueFd db(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!db) return SystemError("open", path, errno);
  if (::fchmod(db.get(), 0600) != 0) return SystemError("chmod", path, errno);
  for (const char* suffix : {"-wal", "-shm"}) {
    fs::path file = path;
    file += suffix;
    if (::chmod(file.c_str(), 0600) != 0 && errno != ENOENT) {
      return SystemError("chmod", file, errno);
    }
  }
  return {};
}

bool IsCorruption(sqlite3* db) {
  const int code = sqlite3_errcode(db);
  return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
}

// A failure of Open: kCorrupt when SQLite found the file damaged or not a database at all.
Error OpenFailure(sqlite3* db, std::string what, const fs::path& path) {
  Error e = Internal(db, what);
  if (IsCorruption(db)) e.reason = kCorrupt;
  e.path = path;
  return e;
}

// How many of a failed check's lines an error carries: the first ones say where the damage is;
// a wrecked file reports thousands.
constexpr int kCheckLinesKept = 10;

// The check's findings as a kCorrupt error, or nullopt when it answers "ok".
std::optional<Error> CheckIntegrity(sqlite3* db, IntegrityCheck check, const fs::path& path) {
  const std::string pragma = check == IntegrityCheck::kFull ? "PRAGMA integrity_check"
                                                            : "PRAGMA quick_check";
  Statement s(db, fmt::format("{}({})", pragma, kCheckLinesKept));
  if (!s.ok()) return OpenFailure(db, pragma, path);
  std::vector<std::string> lines;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    const std::string row = s.Text(0);
    if (row == "ok") continue;
    // A row may hold several lines ("*** in database main ***\nPage 5: ...").
    for (std::size_t at = 0; at < row.size();) {
      std::size_t end = row.find('\n', at);
      if (end == std::string::npos) end = row.size();
      if (end > at && static_cast<int>(lines.size()) < kCheckLinesKept) {
        lines.push_back(row.substr(at, end - at));
      }
      at = end + 1;
    }
  }
  // The check itself may stop at a page it cannot read: what it found so far, then that.
  if (rc != SQLITE_DONE && !IsCorruption(db)) return OpenFailure(db, pragma, path);
  if (rc != SQLITE_DONE) lines.push_back(sqlite3_errmsg(db));
  if (lines.empty()) return std::nullopt;
  std::string found;
  for (const auto& line : lines) found += "\n  " + line;
  return Error{.op = pragma,
               .path = path,
               .detail = "the database is damaged:" + found,
               .reason = std::string(kCorrupt)};
}

}  // namespace

namespace sqlite {

bool Exec(sqlite3* db, std::string_view sql) {
  return sqlite3_exec(db, std::string(sql).c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
}

Error Internal(sqlite3* db, std::string_view what) {
  return Error{.op = std::string(what),
               .detail = db ? sqlite3_errmsg(db) : "out of memory",
               .reason = std::string(kInternalError)};
}

std::string Describe(const ObjectKey& key) {
  return key.namespace_.empty() ? fmt::format("{} \"{}\"", key.resource, key.name)
                                : fmt::format("{} \"{}/{}\"", key.resource, key.namespace_,
                                              key.name);
}

// The newest revision handed out: AUTOINCREMENT's sequence survives deleted rows.
std::optional<std::int64_t> CurrentRevision(sqlite3* db) {
  Statement s(db, "SELECT seq FROM sqlite_sequence WHERE name = 'changes'");
  if (!s.ok()) return std::nullopt;
  int rc = s.Step();
  if (rc == SQLITE_ROW) return s.Int(0);
  if (rc == SQLITE_DONE) return 0;
  return std::nullopt;
}

std::optional<std::int64_t> CompactedThrough(sqlite3* db) {
  Statement s(db, "SELECT value FROM store_state WHERE key = 'compacted'");
  if (!s.ok()) return std::nullopt;
  int rc = s.Step();
  if (rc == SQLITE_ROW) return s.Int(0);
  if (rc == SQLITE_DONE) return 0;
  return std::nullopt;
}

}  // namespace sqlite

std::string_view WatchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
  }
  return "";
}

Result<std::unique_ptr<ObjectStore>> ObjectStore::Open(const fs::path& path,
                                                            const OpenOptions& options) {
  if (auto restricted = RestrictStoreFiles(path); !restricted) {
    return std::unexpected(std::move(restricted.error()));
  }
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 nullptr);
  if (rc != SQLITE_OK) {
    Error e = Internal(db, "open");
    e.path = path;
    sqlite3_close(db);
    return std::unexpected(std::move(e));
  }
  std::unique_ptr<ObjectStore> store(new ObjectStore(db));
  // A second process on the same file waits for the writer instead of failing at once.
  sqlite3_busy_timeout(db, 5000);
  for (std::string_view pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL"}) {
    if (!Exec(db, pragma)) return std::unexpected(OpenFailure(db, std::string(pragma), path));
  }
  // Before anything is written: a damaged file is refused as it is found.
  if (options.integrity_check != IntegrityCheck::kNone) {
    if (auto damaged = CheckIntegrity(db, options.integrity_check, path)) {
      return std::unexpected(std::move(*damaged));
    }
  }
  if (!Exec(db, kSchema)) return std::unexpected(OpenFailure(db, "create tables", path));
  return store;
}

ObjectStore::~ObjectStore() { sqlite3_close(db_); }

namespace {
thread_local int dry_run_depth = 0;
}  // namespace

DryRunScope::DryRunScope() { ++dry_run_depth; }
DryRunScope::~DryRunScope() { --dry_run_depth; }
bool DryRunScope::Active() { return dry_run_depth > 0; }

Result<StoredObject> ObjectStore::Write(const ObjectKey& key, std::int64_t expected_revision,
                                             const Render& render, WatchEventType type) {
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  if (!tx.begun()) return std::unexpected(Internal(db_, "begin"));

  std::optional<std::int64_t> stored_revision;
  {
    Statement s(db_, "SELECT revision FROM objects WHERE resource = ? AND namespace = ? AND "
                     "name = ?");
    if (!s.ok()) return std::unexpected(Internal(db_, "prepare"));
    s.Bind(1, key.resource).Bind(2, key.namespace_).Bind(3, key.name);
    int rc = s.Step();
    if (rc == SQLITE_ROW) {
      stored_revision = s.Int(0);
    } else if (rc != SQLITE_DONE) {
      return std::unexpected(Internal(db_, "read " + Describe(key)));
    }
  }
  if (type == WatchEventType::kAdded && stored_revision) {
    return Refusal(kAlreadyExists, Describe(key) + " already exists");
  }
  if (type != WatchEventType::kAdded && !stored_revision) {
    return Refusal(kNotFound, Describe(key) + " not found");
  }
  if (type != WatchEventType::kAdded && expected_revision != 0 &&
      expected_revision != *stored_revision) {
    return Refusal(kConflict, fmt::format("{} is at revision {}, not {}", Describe(key),
                                          *stored_revision, expected_revision));
  }
  if (DryRunScope::Active()) {  // the transaction rolls back: nothing written
    StoredObject out;
    out.key = key;
    out.revision = stored_revision.value_or(0);
    out.data = render(out.revision);
    return out;
  }
  auto current = CurrentRevision(db_);
  if (!current) return std::unexpected(Internal(db_, "read the revision"));
  StoredObject out;
  out.key = key;
  out.revision = *current + 1;
  out.data = render(out.revision);

  {
    Statement s(db_, "INSERT INTO changes(revision, resource, namespace, name, type, data) "
                     "VALUES(?, ?, ?, ?, ?, ?)");
    if (!s.ok()) return std::unexpected(Internal(db_, "prepare"));
    s.Bind(1, out.revision).Bind(2, key.resource).Bind(3, key.namespace_).Bind(4, key.name);
    s.Bind(5, static_cast<std::int64_t>(type)).BindBlob(6, out.data);
    if (s.Step() != SQLITE_DONE) return std::unexpected(Internal(db_, "log " + Describe(key)));
  }
  if (type == WatchEventType::kDeleted) {
    Statement s(db_, "DELETE FROM objects WHERE resource = ? AND namespace = ? AND name = ?");
    if (!s.ok()) return std::unexpected(Internal(db_, "prepare"));
    s.Bind(1, key.resource).Bind(2, key.namespace_).Bind(3, key.name);
    if (s.Step() != SQLITE_DONE) return std::unexpected(Internal(db_, "delete " + Describe(key)));
  } else {
    Statement s(db_, "INSERT OR REPLACE INTO objects(resource, namespace, name, revision, data) "
                     "VALUES(?, ?, ?, ?, ?)");
    if (!s.ok()) return std::unexpected(Internal(db_, "prepare"));
    s.Bind(1, key.resource).Bind(2, key.namespace_).Bind(3, key.name).Bind(4, out.revision);
    s.BindBlob(5, out.data);
    if (s.Step() != SQLITE_DONE) return std::unexpected(Internal(db_, "write " + Describe(key)));
  }
  if (!tx.Commit()) return std::unexpected(Internal(db_, "commit"));
  {
    std::lock_guard changed(changed_mu_);
    committed_ = out.revision;
  }
  changed_.notify_all();
  return out;
}

std::int64_t ObjectStore::WaitForChange(std::int64_t revision, std::chrono::milliseconds timeout) {
  std::unique_lock lock(changed_mu_);
  if (committed_ < 0) {
    lock.unlock();
    const std::int64_t now = Revision().value_or(0);
    lock.lock();
    committed_ = std::max(committed_, now);
  }
  changed_.wait_for(lock, timeout, [&] { return committed_ > revision; });
  return committed_;
}

Result<StoredObject> ObjectStore::Create(const ObjectKey& key, const Render& render) {
  return Write(key, 0, render, WatchEventType::kAdded);
}

Result<StoredObject> ObjectStore::Update(const ObjectKey& key,
                                              std::int64_t expected_revision,
                                              const Render& render) {
  return Write(key, expected_revision, render, WatchEventType::kModified);
}

Result<StoredObject> ObjectStore::Delete(const ObjectKey& key,
                                              std::int64_t expected_revision,
                                              const Render& render) {
  return Write(key, expected_revision, render, WatchEventType::kDeleted);
}

Result<StoredObject> ObjectStore::Get(const ObjectKey& key) {
  std::lock_guard lock(mu_);
  Statement s(db_, "SELECT revision, data FROM objects WHERE resource = ? AND namespace = ? AND "
                   "name = ?");
  if (!s.ok()) return std::unexpected(Internal(db_, "prepare"));
  s.Bind(1, key.resource).Bind(2, key.namespace_).Bind(3, key.name);
  int rc = s.Step();
  if (rc == SQLITE_DONE) {
    return Refusal(kNotFound, Describe(key) + " not found");
  }
  if (rc != SQLITE_ROW) return std::unexpected(Internal(db_, "read " + Describe(key)));
  return StoredObject{key, s.Int(0), s.Blob(1)};
}

Result<ListResult> ObjectStore::List(std::string_view resource, std::string_view namespace_,
                                          bool all_namespaces) {
  std::lock_guard lock(mu_);
  // One read transaction: the items and the revision belong together.
  Exec(db_, "BEGIN");
  ListResult out;
  auto finish = [&](Result<ListResult> r) {
    Exec(db_, "COMMIT");
    return r;
  };
  auto revision = CurrentRevision(db_);
  if (!revision) return finish(std::unexpected(Internal(db_, "read the revision")));
  out.revision = *revision;
  Statement s(db_, all_namespaces
                       ? "SELECT namespace, name, revision, data FROM objects WHERE resource = ? "
                         "ORDER BY namespace, name"
                       : "SELECT namespace, name, revision, data FROM objects WHERE resource = ? "
                         "AND namespace = ? ORDER BY name");
  if (!s.ok()) return finish(std::unexpected(Internal(db_, "prepare")));
  s.Bind(1, resource);
  if (!all_namespaces) s.Bind(2, namespace_);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    out.items.push_back(
        StoredObject{{std::string(resource), s.Text(0), s.Text(1)}, s.Int(2), s.Blob(3)});
  }
  if (rc != SQLITE_DONE) return finish(std::unexpected(Internal(db_, "list")));
  return finish(std::move(out));
}

Result<std::vector<StoredObject>> ObjectStore::ListAfter(std::string_view resource,
                                                             const ObjectKey& after,
                                                             std::size_t limit) {
  std::lock_guard lock(mu_);
  Statement s(db_, "SELECT namespace, name, revision, data FROM objects WHERE resource = ? AND "
                   "(namespace > ? OR (namespace = ? AND name > ?)) ORDER BY namespace, name "
                   "LIMIT ?");
  if (!s.ok()) return std::unexpected(Internal(db_, "prepare"));
  s.Bind(1, resource).Bind(2, after.namespace_).Bind(3, after.namespace_).Bind(4, after.name);
  s.Bind(5, static_cast<std::int64_t>(limit));
  std::vector<StoredObject> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    out.push_back(StoredObject{{std::string(resource), s.Text(0), s.Text(1)}, s.Int(2), s.Blob(3)});
  }
  if (rc != SQLITE_DONE) return std::unexpected(Internal(db_, "list"));
  return out;
}

Result<std::vector<ChangeEvent>> ObjectStore::ChangesSince(std::string_view resource,
                                                                std::string_view namespace_,
                                                                bool all_namespaces,
                                                                std::int64_t revision) {
  std::lock_guard lock(mu_);
  auto compacted = CompactedThrough(db_);
  if (!compacted) return std::unexpected(Internal(db_, "read the compaction"));
  // The watch cache's rule: a watch may start at the newest compacted revision itself (it asks
  // for what came after it), not before.
  if (revision < *compacted) {
    return Refusal(kExpired,
                   fmt::format("too old resource version: {} ({})", revision, *compacted));
  }
  Statement s(db_, all_namespaces
                       ? "SELECT revision, namespace, name, type, data FROM changes WHERE "
                         "resource = ? AND revision > ? ORDER BY revision"
                       : "SELECT revision, namespace, name, type, data FROM changes WHERE "
                         "resource = ? AND revision > ? AND namespace = ? ORDER BY revision");
  if (!s.ok()) return std::unexpected(Internal(db_, "prepare"));
  s.Bind(1, resource).Bind(2, revision);
  if (!all_namespaces) s.Bind(3, namespace_);
  std::vector<ChangeEvent> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    ChangeEvent e;
    e.type = static_cast<WatchEventType>(s.Int(3));
    e.object = StoredObject{{std::string(resource), s.Text(1), s.Text(2)}, s.Int(0), s.Blob(4)};
    out.push_back(std::move(e));
  }
  if (rc != SQLITE_DONE) return std::unexpected(Internal(db_, "read changes"));
  return out;
}

Result<std::int64_t> ObjectStore::Revision() {
  std::lock_guard lock(mu_);
  auto r = CurrentRevision(db_);
  if (!r) return std::unexpected(Internal(db_, "read the revision"));
  return *r;
}

Result<void> ObjectStore::Compact(std::int64_t keep) {
  std::lock_guard lock(mu_);
  Transaction tx(db_);
  if (!tx.begun()) return std::unexpected(Internal(db_, "begin"));
  auto current = CurrentRevision(db_);
  if (!current) return std::unexpected(Internal(db_, "read the revision"));
  const std::int64_t through = *current - keep;
  auto compacted = CompactedThrough(db_);
  if (!compacted) return std::unexpected(Internal(db_, "read the compaction"));
  if (through <= *compacted) return {};
  {
    // etcd's compaction: each key keeps its newest entry at or before `through` (what a list
    // at a later revision rebuilds it from) unless that entry is a DELETED.
    Statement s(db_, fmt::format(
                         "DELETE FROM changes WHERE revision <= ?1 AND (type = {} OR revision < "
                         "(SELECT MAX(p.revision) FROM changes p WHERE p.resource = "
                         "changes.resource AND p.namespace = changes.namespace AND p.name = "
                         "changes.name AND p.revision <= ?1))",
                         static_cast<int>(WatchEventType::kDeleted)));
    if (!s.ok()) return std::unexpected(Internal(db_, "prepare"));
    s.Bind(1, through);
    if (s.Step() != SQLITE_DONE) return std::unexpected(Internal(db_, "compact"));
  }
  {
    Statement s(db_, "INSERT OR REPLACE INTO store_state(key, value) VALUES('compacted', ?)");
    if (!s.ok()) return std::unexpected(Internal(db_, "prepare"));
    s.Bind(1, through);
    if (s.Step() != SQLITE_DONE) return std::unexpected(Internal(db_, "record the compaction"));
  }
  if (!tx.Commit()) return std::unexpected(Internal(db_, "commit"));
  return {};
}

namespace {
constexpr std::string_view kIdentityKey = "identity";
}  // namespace

Result<std::uint64_t> ObjectStore::Identity() {
  std::lock_guard lock(mu_);
  Statement s(db_, "SELECT value FROM store_state WHERE key = ?");
  if (!s.ok()) return std::unexpected(Internal(db_, "prepare"));
  s.Bind(1, kIdentityKey);
  const int rc = s.Step();
  if (rc == SQLITE_DONE) return 0;
  if (rc != SQLITE_ROW) return std::unexpected(Internal(db_, "read the store's identity"));
  return static_cast<std::uint64_t>(s.Int(0));
}

Result<void> ObjectStore::SetIdentity(std::uint64_t id) {
  std::lock_guard lock(mu_);
  Statement s(db_, "INSERT OR REPLACE INTO store_state(key, value) VALUES(?, ?)");
  if (!s.ok()) return std::unexpected(Internal(db_, "prepare"));
  s.Bind(1, kIdentityKey).Bind(2, static_cast<std::int64_t>(id));
  if (s.Step() != SQLITE_DONE) return std::unexpected(Internal(db_, "write the store's identity"));
  return {};
}

Result<std::int64_t> ObjectStore::CompactedRevision() {
  std::lock_guard lock(mu_);
  auto compacted = CompactedThrough(db_);
  if (!compacted) return std::unexpected(Internal(db_, "read the compaction"));
  return *compacted;
}

}  // namespace podlimits::storage
