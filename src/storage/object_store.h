// The node's object store: SQLite (Debian's libsqlite3) under the data directory, the embedded
// default the way k3s keeps its objects in SQLite through kine.
//
// One database file, WAL mode. Every write is one transaction that takes the next revision from
// a single counter: an object's resourceVersion is the revision of its last write, so
// resourceVersions only grow, across all resources, and never repeat (also after deletes and
// restarts). Each write also appends an entry (ADDED, MODIFIED, DELETED with the object) to a
// change log keyed by revision: a watch from resourceVersion N replays the entries after N, as
// long as the log still reaches back to N; compaction keeps the newest entries, and a watch from
// before them is told so (the apiserver's 410 Gone, "too old resource version").
//
// The log also answers what a list looked like at an earlier revision R, as etcd's MVCC store
// does (a paged list shows every page as at its first page's revision): an object written at or
// before R is in the table as it was; one written after R is its newest log entry at or before R
// (absent when that is a DELETED, or when its first entry after R is its ADDED); an object
// deleted after R comes back from the log. Compaction is etcd's: up to revision C it drops every
// entry except each key's newest one (and that too when it is a DELETED), and records C; so the
// state at any R >= C can be rebuilt. A log compacted the older way (every entry up to C dropped)
// cannot say what an object changed after R was at R when its last write before R is gone: such a
// page is kExpired, as one before C is.
//
// The store does not interpret objects: the caller renders each object's bytes for the revision
// it is given (so metadata.resourceVersion is inside what is stored and read back as is), and
// optimistic concurrency compares the caller's expected revision with the stored one.
//
// Durability: a write is acknowledged after its commit; with WAL and synchronous=NORMAL a commit
// survives the process being killed at any point (kill -9), which is what a node daemon needs;
// a power cut may lose the last commits (synchronous=FULL would fsync each one).
//
// The files (the database, its -wal and -shm) are the owner's alone, 0600: the store holds the
// node's Secrets. Open can check the database's structure first (PRAGMA quick_check or
// integrity_check), so that a damaged file is refused at start instead of answering every list
// with "database disk image is malformed".
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

struct sqlite3;

namespace podlimits::storage {

// Where an object lives: resource ("pods"), namespace ("" for cluster-scoped), name.
struct ObjectKey {
  std::string resource;
  std::string namespace_;
  std::string name;

  bool operator==(const ObjectKey&) const = default;
  auto operator<=>(const ObjectKey&) const = default;
};

struct StoredObject {
  ObjectKey key;
  std::int64_t revision = 0;  // the resourceVersion of its last write
  std::string data;           // the object's bytes as rendered for that revision
};

enum class WatchEventType { kAdded, kModified, kDeleted };
std::string_view WatchEventTypeName(WatchEventType type);  // "ADDED", ...

struct ChangeEvent {
  WatchEventType type = WatchEventType::kAdded;
  StoredObject object;  // for kDeleted: the object as it was deleted, at the delete's revision
};

// The reasons (base/error.h) of the store's errors, apimachinery's StatusReasons where one fits.
inline constexpr std::string_view kNotFound = "NotFound";            // no such object
inline constexpr std::string_view kAlreadyExists = "AlreadyExists";  // create of an existing key
// The expected revision is not the stored one.
inline constexpr std::string_view kConflict = "Conflict";
// The change log no longer reaches back to the revision asked for (CompactedRevision says how far
// it does).
inline constexpr std::string_view kExpired = "Expired";
// The revision asked for is newer than the store's (Revision says which that is).
inline constexpr std::string_view kResourceVersionTooLarge = "ResourceVersionTooLarge";
inline constexpr std::string_view kInternalError = "InternalError";  // SQLite failed
// Open: the file is not a sound SQLite database (the error holds its check's lines).
inline constexpr std::string_view kCorrupt = "Corrupt";

// Renders an object's bytes for the revision it gets.
using Render = std::function<std::string(std::int64_t revision)>;

struct ListResult {
  std::vector<StoredObject> items;  // sorted by namespace, then name
  std::int64_t revision = 0;        // the store's revision when listed
};

// Where a page of a list begins: at the key (namespace_, name), or just after it. Keys compare
// as the list is ordered: namespace, then name, as byte strings.
struct ListStart {
  std::string namespace_;
  std::string name;
  bool after = false;  // false: from the key itself
};

struct PageRequest {
  std::string resource;
  std::string namespace_;  // the one namespace, unless all_namespaces
  bool all_namespaces = false;
  ListStart start;            // default: from the first object
  std::int64_t revision = 0;  // the objects as they were at this revision; 0: the newest
  std::size_t limit = 0;      // at most this many; 0: all
  bool count_remaining = false;  // count the objects after the page (when there are any)
};

struct Page {
  std::vector<StoredObject> items;  // sorted by namespace, then name
  std::int64_t revision = 0;        // the revision they show
  bool more = false;                // objects come after the last item
  std::int64_t remaining = 0;       // with count_remaining and more: how many
};

// While one lives, the writes this thread makes are dry runs (the API's dryRun=All): checked
// and rendered as real ones, answered with what would be stored, and never committed or seen by
// a watch. Create answers without a resourceVersion, update and delete with the stored one.
class DryRunScope {
 public:
  DryRunScope();
  ~DryRunScope();
  DryRunScope(const DryRunScope&) = delete;
  DryRunScope& operator=(const DryRunScope&) = delete;
  static bool Active();
};

// How much of the database Open reads to check it before use.
enum class IntegrityCheck {
  kNone,
  // PRAGMA quick_check: every page's b-tree structure and record format, without comparing
  // indexes with their tables; linear in the file's size (docs/benchmarks.md has the figure).
  kQuick,
  // PRAGMA integrity_check: quick_check plus every index entry against its row.
  kFull,
};

struct OpenOptions {
  IntegrityCheck integrity_check = IntegrityCheck::kNone;
};

class ObjectStore {
 public:
  // Opens (creating when missing) the database at `path`, a file of its own directory's, and
  // makes it and its -wal and -shm 0600 (also those of a store made before that rule). A
  // database whose check fails, or that SQLite cannot read as one, is kCorrupt, with the
  // check's first lines.
  static Result<std::unique_ptr<ObjectStore>> Open(const std::filesystem::path& path,
                                                        const OpenOptions& options = {});
  ~ObjectStore();
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  Result<StoredObject> Create(const ObjectKey& key, const Render& render);
  Result<StoredObject> Get(const ObjectKey& key);
  // Every object of `resource` in `namespace_` ("" with `all_namespaces`: every namespace).
  Result<ListResult> List(std::string_view resource, std::string_view namespace_,
                               bool all_namespaces);
  // Up to `limit` objects of `resource` in every namespace that sort after `after` (by
  // namespace, then name), in that order: how a caller sees every object without holding them
  // all at once (the store's maintenance over thousands of events).
  Result<std::vector<StoredObject>> ListAfter(std::string_view resource,
                                                   const ObjectKey& after, std::size_t limit);
  // Up to `limit` objects from `start` as they were at `revision`, read with a LIMIT (a page
  // never holds more than it returns, plus one object to know whether more follow), in one read
  // transaction. kExpired when the log cannot rebuild that revision (before the compaction, or an
  // object of the page whose last write before it the old compaction lost: see above);
  // kResourceVersionTooLarge when the store has not reached it yet. `remaining` counts the
  // objects that were there, known or not.
  Result<Page> ListPage(const PageRequest& request);
  // Replaces the object. `expected_revision` 0 means unconditional (the apiserver's update
  // without a resourceVersion).
  Result<StoredObject> Update(const ObjectKey& key, std::int64_t expected_revision,
                                   const Render& render);
  // Removes the object; `render` gives the bytes the DELETED event carries at the delete's
  // revision (the object with that resourceVersion).
  Result<StoredObject> Delete(const ObjectKey& key, std::int64_t expected_revision,
                                   const Render& render);

  // The changes to `resource` (in `namespace_`, or all) after `revision`, oldest first.
  Result<std::vector<ChangeEvent>> ChangesSince(std::string_view resource,
                                                     std::string_view namespace_,
                                                     bool all_namespaces, std::int64_t revision);

  // The newest revision (0 for an empty store).
  Result<std::int64_t> Revision();
  // Compacts the log to its newest `keep` revisions, as etcd compacts (see above): entries at
  // or before the compaction revision go, except each key's newest one unless that is a
  // DELETED. Watches from before the compaction revision then get kExpired; lists at or after it
  // still see what was.
  Result<void> Compact(std::int64_t keep);
  // The revision the log was last compacted at (0: never).
  Result<std::int64_t> CompactedRevision();

  // The store's identity: a random number written into the database once (storage/node_store.h
  // names it in the data directory's marker, so that a store that is not the node's own is
  // seen). 0 while none was set.
  Result<std::uint64_t> Identity();
  Result<void> SetIdentity(std::uint64_t id);

  // Blocks until a write after `revision` has committed or `timeout` passed; returns the newest
  // committed revision. What watches and the node's pod workers wait on between reads of
  // ChangesSince.
  std::int64_t WaitForChange(std::int64_t revision, std::chrono::milliseconds timeout);

 private:
  explicit ObjectStore(sqlite3* db) : db_(db) {}
  Result<StoredObject> Write(const ObjectKey& key, std::int64_t expected_revision,
                                  const Render& render, WatchEventType type);

  sqlite3* db_;
  std::mutex mu_;  // one connection, one writer at a time

  std::mutex changed_mu_;
  std::condition_variable changed_;
  std::int64_t committed_ = -1;  // the newest committed revision; -1 until first read
};

}  // namespace podlimits::storage
