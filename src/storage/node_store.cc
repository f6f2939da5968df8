#include "storage/node_store.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <fstream>
#include <optional>

#include "base/fs.h"

namespace podlimits::storage {
namespace {

namespace fs = std::filesystem;

std::string StorePath(const fs::path& db, std::string_view suffix) {
  return db.string() + std::string(suffix);
}

// What is at DATA_DIR/state.db before serve opens it.
enum class StoreFile {
  kMissing,
  kEmpty,     // 0 bytes: SQLite would take it for a new database
  kNoTables,  // a database without the store's tables
  kPresent,   // the store's tables, or something SQLite cannot read (Open's checks say what)
  // A database in rollback journal mode (a backup put in place: the store itself is always in
  // WAL mode) with a -wal beside it: the lost store's, which SQLite would replay over it.
  kBesideAnOldWal,
};

// Whether the database's header says rollback journal mode (bytes 18 and 19 are 1; WAL mode
// makes them 2). False when it is no SQLite header at all.
bool InRollbackJournalMode(const fs::path& db) {
  std::ifstream in(db, std::ios::binary);
  char header[20] = {};
  if (!in.read(header, sizeof header)) return false;
  return std::string_view(header, 16) == std::string_view("SQLite format 3\0", 16) &&
         header[18] == 1 && header[19] == 1;
}

Result<StoreFile> InspectStoreFile(const fs::path& db) {
  struct stat st {};
  if (::stat(db.c_str(), &st) != 0) {
    if (errno == ENOENT) return StoreFile::kMissing;
    return SystemError("stat", db, errno);
  }
  // Decided before SQLite opens it: opening a 0-byte database deletes a -wal beside it.
  if (st.st_size == 0) return StoreFile::kEmpty;
  std::error_code ec;
  if (InRollbackJournalMode(db) && fs::file_size(StorePath(db, "-wal"), ec) > 0 && !ec) {
    return StoreFile::kBesideAnOldWal;
  }
  sqlite3* handle = nullptr;
  // Read-write, as serve opens it next: a -wal left by a kill -9 is read (a first start's
  // tables may be in it alone).
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close(handle);
    return StoreFile::kPresent;
  }
  sqlite3_busy_timeout(handle, 5000);
  sqlite3_stmt* stmt = nullptr;
  StoreFile found = StoreFile::kPresent;
  if (sqlite3_prepare_v2(handle,
                         "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'objects'",
                         -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_DONE) {
    found = StoreFile::kNoTables;
  }
  sqlite3_finalize(stmt);
  sqlite3_close(handle);
  return found;
}

// What of a node the data directory shows, besides its store.
struct NodeTraces {
  bool marker = false;
  std::optional<std::uint64_t> marked;  // the identity the marker names, when it names one
  bool pki = false;
  std::optional<std::size_t> pods;  // entries of pods/, when it exists

  bool Any() const { return marker || pki || pods.has_value(); }

  std::string Describe(const fs::path& data_dir) const {
    std::vector<std::string> parts;
    if (marked) {
      parts.push_back(fmt::format("{} names store {:016x}", kStoreMarkerFileName, *marked));
    } else if (marker) {
      parts.push_back(fmt::format("{} is there", kStoreMarkerFileName));
    }
    if (pki) parts.push_back("pki/ (its certificates) is there");
    if (pods) {
      parts.push_back(fmt::format("pods/ holds {} pod{}", *pods, *pods == 1 ? "" : "s"));
    }
    std::string out = data_dir.string() + " held a node: ";
    for (std::size_t i = 0; i < parts.size(); ++i) {
      out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    }
    return out;
  }
};

NodeTraces FindNodeTraces(const fs::path& data_dir) {
  NodeTraces traces;
  std::error_code ec;
  const fs::path marker = data_dir / kStoreMarkerFileName;
  traces.marker = fs::exists(marker, ec);
  if (traces.marker) {
    if (auto text = ReadSmallFile(marker, 4096)) traces.marked = ParseStoreMarker(*text);
  }
  traces.pki = fs::is_directory(data_dir / "pki", ec);
  if (fs::is_directory(data_dir / "pods", ec)) {
    std::size_t n = 0;
    for (auto it = fs::directory_iterator(data_dir / "pods", ec);
         !ec && it != fs::directory_iterator(); it.increment(ec)) {
      ++n;
    }
    traces.pods = n;
  }
  return traces;
}

// The two ways on from a lost or damaged store. `aside` is what --reinitialize-store does with
// what is left of it.
std::string WaysOn(const fs::path& db, std::string_view aside) {
  return fmt::format(
      "\n  To restore a backup (podlimits serve backup): put it in place as {0}, remove {1} and "
      "{2}, and start serve again (docs/serve.md, \"Backing up and restoring a node\")."
      "\n  To start afresh on purpose, losing every object of the node and stopping its pods: "
      "start serve once with --reinitialize-store ({3}).",
      db.string(), StorePath(db, "-wal"), StorePath(db, "-shm"), aside);
}

std::string LostStoreMessage(const fs::path& db, StoreFile state, const NodeTraces& traces,
                             const fs::path& data_dir) {
  const char* what = state == StoreFile::kMissing ? "is missing"
                     : state == StoreFile::kEmpty ? "is empty (0 bytes)"
                                                  : "holds none of the store's tables";
  return fmt::format(
      "refusing to start: the node's store {} {}, but {}. On an empty store the node would stop "
      "and delete its running pods and their logs, and its objects (Secrets, ConfigMaps, ...) "
      "would be gone.{}",
      db.string(), what, traces.Describe(data_dir),
      WaysOn(db, "what is left of the old store is kept as state.db.lost-TIME"));
}

std::string DamagedStoreMessage(const fs::path& db, const Error& found) {
  return fmt::format("refusing to start: the node's store is damaged: {}{}", found.Message(),
                     WaysOn(db, "the damaged file is kept as state.db.corrupt-TIME"));
}

// Renames the store's files (the database, -wal, -shm) to state.db.WHY-TIME, keeping SQLite's
// pairing of them; the moved database's new name, or "" when there was none. A name taken
// already (twice in one second) gets a number: nothing kept aside is ever replaced.
Result<std::string> MoveStoreAside(const fs::path& db, std::string_view why) {
  const std::tm now =
      fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()));
  std::string base = fmt::format("{}.{}-{:%Y%m%dT%H%M%SZ}", db.string(), why, now);
  auto taken = [](const std::string& name) {
    std::error_code ec;
    for (std::string_view suffix : {"", "-wal", "-shm"}) {
      if (fs::exists(name + std::string(suffix), ec)) return true;
    }
    return false;
  };
  for (int n = 1; taken(base); ++n) {
    base = fmt::format("{}.{}-{:%Y%m%dT%H%M%SZ}-{}", db.string(), why, now, n);
  }
  std::string moved;
  for (std::string_view suffix : {"", "-wal", "-shm"}) {
    const std::string from = StorePath(db, suffix);
    const std::string to = base + std::string(suffix);
    if (::rename(from.c_str(), to.c_str()) != 0) {
      if (errno == ENOENT) continue;
      return SystemError("rename", from, errno, "to " + to);
    }
    if (suffix.empty()) moved = to;
  }
  return moved;
}

std::uint64_t NewIdentity() {
  std::uint64_t id = 0;
  while (id == 0) {
    if (::getrandom(&id, sizeof id, 0) != static_cast<ssize_t>(sizeof id)) id = 0;
  }
  return id;
}

}  // namespace

std::optional<std::uint64_t> ParseStoreMarker(std::string_view text) {
  std::optional<std::uint64_t> found;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    std::uint64_t id = 0;
    auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), id, 16);
    if (found || line.size() != 16 || ec != std::errc() || ptr != line.data() + line.size() ||
        id == 0) {
      return std::nullopt;
    }
    found = id;
  }
  return found;
}

std::string FormatStoreMarker(std::uint64_t identity) {
  return fmt::format(
      "# podlimits serve: the store this node created; its state.db carries the same identity "
      "(docs/serve.md)\n{:016x}\n",
      identity);
}

Result<NodeStore> OpenNodeStore(const NodeStoreOptions& options) {
  const fs::path db = options.data_dir / kStoreFileName;
  NodeStore out;
  auto state = InspectStoreFile(db);
  if (!state) return std::unexpected(state.error());
  if (*state == StoreFile::kBesideAnOldWal) {
    return Failure(fmt::format(
        "refusing to start: {0} is in rollback journal mode, as a backup is (podlimits serve "
        "backup), but {0}-wal is there too: it belongs to the store the backup replaces, and "
        "SQLite would replay it over the backup. Remove {0}-wal and {0}-shm, then start serve "
        "again.",
        db.string()));
  }
  const NodeTraces traces = FindNodeTraces(options.data_dir);
  bool reinitialized = false;
  if (*state != StoreFile::kPresent && traces.Any()) {
    if (!options.reinitialize)
      return Failure(LostStoreMessage(db, *state, traces, options.data_dir));
    auto moved = MoveStoreAside(db, "lost");
    if (!moved) return std::unexpected(moved.error());
    out.notices.push_back(
        moved->empty() ? fmt::format("--reinitialize-store: {} was missing; starting on an empty "
                                     "store",
                                     db.string())
                       : fmt::format("--reinitialize-store: the lost store is kept as {}; "
                                     "starting on an empty store",
                                     *moved));
    reinitialized = true;
  }
  const OpenOptions open_options{options.integrity_check};
  auto opened = ObjectStore::Open(db, open_options);
  if (!opened && opened.error().Is(storage::kCorrupt)) {
    if (!options.reinitialize) return Failure(DamagedStoreMessage(db, opened.error()));
    auto moved = MoveStoreAside(db, "corrupt");
    if (!moved) return std::unexpected(moved.error());
    out.notices.push_back(fmt::format(
        "--reinitialize-store: the damaged store is kept as {}; starting on an empty store",
        *moved));
    reinitialized = true;
    opened = ObjectStore::Open(db, open_options);
  }
  if (!opened) return std::unexpected(opened.error());
  out.store = std::move(*opened);

  auto identity = out.store->Identity();
  if (!identity) return std::unexpected(identity.error());
  if (*identity == 0) {
    *identity = NewIdentity();
    if (auto set = out.store->SetIdentity(*identity); !set) {
      return std::unexpected(set.error());
    }
  }
  const bool created = reinitialized || *state != StoreFile::kPresent;
  if (traces.marked && *traces.marked != *identity && !created) {
    out.notices.push_back(fmt::format(
        "{} is store {:016x}, not store {:016x} that {} named (a backup of another node, or from "
        "before --reinitialize-store, put in place); {} now names it",
        db.string(), *identity, *traces.marked, kStoreMarkerFileName, kStoreMarkerFileName));
  }
  if (traces.marked != *identity) {
    // After the identity is in the store: a crash in between leaves a store that names itself.
    if (auto written = WriteFileAtomically(options.data_dir / kStoreMarkerFileName,
                                           FormatStoreMarker(*identity), 0600);
        !written) {
      return std::unexpected(written.error());
    }
  }
  if (options.reinitialize && !reinitialized && *state == StoreFile::kPresent) {
    out.notices.push_back(fmt::format(
        "--reinitialize-store: {} is sound; nothing was reinitialized (the flag only acts on a "
        "lost or damaged store)",
        db.string()));
  }
  return out;
}

}  // namespace podlimits::storage
