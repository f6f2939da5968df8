#include "storage/object_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <utility>

#include "base/unique_fd.h"

namespace podlimits::storage {

namespace fs = std::filesystem;

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

Error Internal(sqlite3* db, std::string_view what) {
  return Error{.op = std::string(what),
               .detail = db ? sqlite3_errmsg(db) : "out of memory",
               .reason = std::string(kInternalError)};
}

// A prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql) {
    rc_ = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return rc_ == SQLITE_OK; }
  Statement& Bind(int i, std::string_view text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& Bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& BindBlob(int i, std::string_view bytes) {
    sqlite3_bind_blob(stmt_, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }
  std::string Text(int col) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  std::string Blob(int col) const {
    auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  std::int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

bool Exec(sqlite3* db, std::string_view sql) {
  return sqlite3_exec(db, std::string(sql).c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
}

// BEGIN IMMEDIATE ... COMMIT, rolled back unless committed.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db), begun_(Exec(db, "BEGIN IMMEDIATE")) {}
  ~Transaction() {
    if (begun_ && !done_) Exec(db_, "ROLLBACK");
  }
  bool begun() const { return begun_; }
  bool Commit() {
    done_ = Exec(db_, "COMMIT");
    return done_;
  }

 private:
  sqlite3* db_;
  bool begun_;
  bool done_ = false;
};

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

namespace {

// The parameters of a page's statements: ?1 resource, ?2 revision, ?3 the start's namespace,
// ?4 its name, ?5 the list's namespace, ?6 the LIMIT.
//
// The key range of a page over the rows of table `t`: the resource, the namespace, and the keys
// from (or after) the start.
std::string PageRange(const PageRequest& r, const ListStart& start, std::string_view t) {
  const std::string_view op = start.after ? ">" : ">=";
  const bool from_the_first = !start.after && start.namespace_.empty() && start.name.empty();
  // A row value, so that SQLite seeks to the start in the key's index rather than scanning.
  if (r.all_namespaces) {
    if (from_the_first) return fmt::format("{0}.resource = ?1", t);
    return fmt::format("{0}.resource = ?1 AND ({0}.namespace, {0}.name) {1} (?3, ?4)", t, op);
  }
  if (from_the_first) return fmt::format("{0}.resource = ?1 AND {0}.namespace = ?5", t);
  return fmt::format("{0}.resource = ?1 AND {0}.namespace = ?5 AND {0}.name {1} ?4", t, op);
}

// The objects of the range as they were at revision ?2: namespace, name, revision, data, and
// whether the log cannot tell (1: the key changed after ?2 and its last entry at or before ?2
// is gone). Objects written at or before ?2 are the table's; every key with an entry after ?2
// is its newest entry at or before ?2, left out when that is a DELETED or when there is none
// and its first entry after ?2 is its ADDED. The keys changed after ?2 are found through the
// revision index: a page is asked for soon after the first, so they are few, where the log
// holds every key's last entry.
std::string PageAtRevision(const PageRequest& r, const ListStart& start) {
  return fmt::format(
      "SELECT o.namespace, o.name, o.revision, o.data, 0 FROM objects o "
      "WHERE {0} AND o.revision <= ?2 "
      "UNION ALL "
      "SELECT k.namespace, k.name, c.revision, c.data, c.revision IS NULL "
      "FROM (SELECT DISTINCT x.namespace, x.name FROM changes x INDEXED BY changes_by_resource "
      "WHERE {1} AND x.revision > ?2) k "
      "LEFT JOIN changes c ON c.revision = (SELECT MAX(p.revision) FROM changes p WHERE "
      "p.resource = ?1 AND p.namespace = k.namespace AND p.name = k.name AND p.revision <= ?2) "
      "WHERE (c.revision IS NOT NULL AND c.type != {2}) OR (c.revision IS NULL AND "
      "(SELECT f.type FROM changes f WHERE f.resource = ?1 AND f.namespace = k.namespace AND "
      "f.name = k.name AND f.revision > ?2 ORDER BY f.revision LIMIT 1) != {3})",
      PageRange(r, start, "o"), PageRange(r, start, "x"),
      static_cast<int>(WatchEventType::kDeleted), static_cast<int>(WatchEventType::kAdded));
}

void BindPage(Statement& s, const PageRequest& r, const ListStart& start, std::int64_t revision) {
  s.Bind(1, r.resource).Bind(2, revision).Bind(3, start.namespace_).Bind(4, start.name);
  s.Bind(5, r.namespace_);
}

}  // namespace

Result<Page> ObjectStore::ListPage(const PageRequest& request) {
  std::lock_guard lock(mu_);
  // One read transaction: the page, its revision and the count belong together.
  Exec(db_, "BEGIN");
  auto finish = [&](Result<Page> r) {
    Exec(db_, "COMMIT");
    return r;
  };
  const auto current = CurrentRevision(db_);
  if (!current) return finish(std::unexpected(Internal(db_, "read the revision")));
  Page page;
  page.revision = request.revision == 0 ? *current : request.revision;
  if (page.revision > *current) {
    return finish(Refusal(kResourceVersionTooLarge,
                          fmt::format("revision {} is newer than the store's ({})", page.revision,
                                      *current)));
  }
  // The newest state is the table's alone (and never compacted); an older one is rebuilt from
  // the log, as far as it reaches.
  const bool now = page.revision == *current;
  std::int64_t compacted = 0;
  if (!now) {
    const auto through = CompactedThrough(db_);
    if (!through) return finish(std::unexpected(Internal(db_, "read the compaction")));
    compacted = *through;
    if (page.revision < compacted) {
      return finish(Refusal(
          kExpired, fmt::format("revision {} is compacted ({})", page.revision, compacted)));
    }
  }
  auto select = [&](const ListStart& start) {
    return now ? fmt::format("SELECT o.namespace, o.name, o.revision, o.data FROM objects o "
                             "WHERE {}",
                             PageRange(request, start, "o"))
               : PageAtRevision(request, start);
  };
  {
    Statement s(db_, select(request.start) + " ORDER BY 1, 2 LIMIT ?6");
    if (!s.ok()) return finish(std::unexpected(Internal(db_, "prepare")));
    BindPage(s, request, request.start, page.revision);
    // One more than asked: whether more follow.
    s.Bind(6, request.limit == 0 ? std::int64_t{-1} : static_cast<std::int64_t>(request.limit) + 1);
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) {
      // A row the log cannot tell the contents of is an object that was there (its first
      // change after the revision was an update or a delete): as the one past the page it
      // only says that more follow.
      if (request.limit != 0 && page.items.size() == request.limit) {
        page.more = true;
        break;
      }
      if (!now && s.Int(4) != 0) {
        const ObjectKey key{request.resource, s.Text(0), s.Text(1)};
        return finish(Refusal(
            kExpired,
            fmt::format("the change log cannot say what {} was at revision {}: its last write "
                        "before it was compacted away",
                        Describe(key), page.revision)));
      }
      page.items.push_back(
          StoredObject{{request.resource, s.Text(0), s.Text(1)}, s.Int(2), s.Blob(3)});
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
      return finish(std::unexpected(Internal(db_, "list " + request.resource)));
    }
  }
  if (page.more && request.count_remaining) {
    const ListStart after{page.items.back().key.namespace_, page.items.back().key.name, true};
    Statement s(db_, now ? fmt::format("SELECT COUNT(*) FROM objects o WHERE {}",
                                       PageRange(request, after, "o"))
                         : "SELECT COUNT(*) FROM (" + select(after) + ")");
    if (!s.ok()) return finish(std::unexpected(Internal(db_, "prepare")));
    BindPage(s, request, after, page.revision);
    if (s.Step() != SQLITE_ROW) return finish(std::unexpected(Internal(db_, "count")));
    page.remaining = s.Int(0);
  }
  return finish(std::move(page));
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
