// One page of a list, read as kube-apiserver's etcd3 store reads it (GetList), from SQLite with
// a LIMIT, never the whole collection at once:
//
//   1. Which revision. A continue token's (every page of a list shows the revision of its first
//      page; a token of -1 reads the newest); with resourceVersionMatch=Exact, or with a limit and
//      a resourceVersion other than "" and "0" (the legacy exact read), that resourceVersion;
//      otherwise the newest.
//   2. Where it starts: the token's start key (just after the previous page's last item), or the
//      first object.
//   3. The paging loop: read `limit` objects, keep those the selectors match; while the page is
//      not full and more objects follow, read on after the last one looked at, each read twice
//      as many up to kMaxBatch (upstream doubles to 10,000 against etcd; here each read is a local
//      query, so smaller reads cost little and bound what one list holds at a time). So a page
//      holds `limit` matching objects, or the last of them. An unpaged list with selectors reads
//      kMaxBatch at a time too (at one revision), keeping only what matches.
//   4. metadata.continue when objects follow the last one looked at (with selectors the rest may
//      not match: the next page can be empty); metadata.remainingItemCount, how many follow,
//      only without selectors, as upstream (with them the count would not be exact).
//
// Errors, upstream's: 400 `invalid continue token: continue key is not valid: ...`; 400
// `specifying resource version is not allowed when using continue` (a resourceVersion other
// than "" and "0" with a token); 400 `invalid resource version: resourceVersion: Invalid value:
// "x": strconv.ParseUint: parsing "x": invalid syntax`; a revision the store's log no longer
// reaches (compacted, or a store compacted before the log kept each key's last entry) is 410
// Expired: for a token, "The provided continue parameter is too old to display a consistent
// list result. ..." with a token for the rest at the newest revision in the Status's
// metadata.continue; for an exact resourceVersion, "The resourceVersion for the provided list
// is too old."; a revision the store has not reached is 504 `Timeout: Too large resource
// version: N, current: M`.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "listwatch/api_errors.h"
#include "listwatch/list_options.h"
#include "storage/object_store.h"

namespace podlimits::apiserver {

// Objects read per query at most once a selector has turned down some (see above).
inline constexpr std::size_t kMaxBatch = 500;

struct ListScope {
  std::string resource;
  std::string namespace_;  // "" with all_namespaces
  bool all_namespaces = false;
  bool namespaced = true;  // the resource's: its keys below the prefix are `ns/name`
};

struct ListedPage {
  std::vector<storage::StoredObject> items;
  std::int64_t revision = 0;
  std::string continue_token;  // "" when the list ends with this page
  std::optional<std::int64_t> remaining_item_count;
};

// Whether a stored object is one the selectors match; empty when there are no selectors.
using ListFilter = std::function<bool(const storage::StoredObject&)>;

std::expected<ListedPage, ApiError> ReadListPage(storage::ObjectStore& store, const ListScope& scope,
                                                 const ListOptions& options,
                                                 const ListFilter& keep);

}  // namespace podlimits::apiserver
