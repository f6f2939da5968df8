// ObjectStore::ListPage: a page of a list as the objects were at a revision, from the objects
// table when that is the newest and rebuilt from the change log when it is older (object_store.h
// says what the log keeps after a compaction, and so which revisions it can rebuild).
#include <fmt/format.h>
#include <sqlite3.h>

#include "storage/object_store.h"
#include "storage/sqlite_statement.h"

namespace podlimits::storage {

using sqlite::Describe;
using sqlite::Exec;
using sqlite::Internal;
using sqlite::Statement;

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
  const auto current = sqlite::CurrentRevision(db_);
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
    const auto through = sqlite::CompactedThrough(db_);
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

}  // namespace podlimits::storage
