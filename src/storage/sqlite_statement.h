// What the object store's files share about SQLite (object_store.cc, object_store_pages.cc): a
// prepared statement, a write transaction, the store's revision counters and its errors. Internal
// to src/storage: callers use object_store.h.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "storage/object_store.h"

namespace podlimits::storage::sqlite {

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

// Runs `sql` (no rows); false when SQLite refused it.
bool Exec(sqlite3* db, std::string_view sql);

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

// SQLite failed at `what`: kInternalError with SQLite's message.
Error Internal(sqlite3* db, std::string_view what);

// `pods "default/web"`, `namespaces "team"`: the key as the store's messages name it.
std::string Describe(const ObjectKey& key);

// The newest revision handed out (0 for an empty store); nullopt when SQLite failed.
std::optional<std::int64_t> CurrentRevision(sqlite3* db);
// The revision the log was compacted through (0: never); nullopt when SQLite failed.
std::optional<std::int64_t> CompactedThrough(sqlite3* db);

}  // namespace podlimits::storage::sqlite
