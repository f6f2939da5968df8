#include "listwatch/paged_list.h"

#include <fmt/format.h>

#include <algorithm>

#include "listwatch/continue_token.h"
#include "field/field.h"

namespace podlimits::apiserver {
namespace {

// storage's messages for a revision the log no longer reaches (etcd3's interpretListError).
constexpr std::string_view kListTooOld = "The resourceVersion for the provided list is too old.";
constexpr std::string_view kInconsistentContinue =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token "
    "results in an inconsistent list - objects that were created, modified, or deleted between "
    "the time the first chunk was returned and now may show up in the list.";

// APIObjectVersioner.ParseResourceVersion: strconv.ParseUint, its error as a field error.
Result<std::int64_t> ParseResourceVersion(std::string_view rv) {
  auto invalid = [&](std::string_view why) {
    return Failure(
        field::Invalid(field::Path("resourceVersion"), std::string(rv),
                       fmt::format("strconv.ParseUint: parsing {}: {}", field::GoQuote(rv), why))
            .String());
  };
  if (rv.empty()) return invalid("invalid syntax");
  std::uint64_t v = 0;
  for (char c : rv) {
    if (c < '0' || c > '9') return invalid("invalid syntax");
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return invalid("value out of range");
    v = v * 10 + d;
  }
  // Larger than any revision SQLite's counter can reach: the store has not reached it either.
  return static_cast<std::int64_t>(std::min<std::uint64_t>(v, INT64_MAX));
}

// The key of an object below the list's prefix, as the token carries it.
std::string KeyBelowPrefix(const storage::ObjectKey& key, const ListScope& scope) {
  return scope.all_namespaces && scope.namespaced ? key.namespace_ + "/" + key.name : key.name;
}

// A token's start key as the store's start: "KEY\0" is just after KEY, "KEY" from it; `ns/name`
// below the prefix of a list over every namespace (a bare `ns` is that namespace's first key).
storage::ListStart StartOf(std::string_view start, const ListScope& scope) {
  storage::ListStart out;
  if (!start.empty() && start.back() == '\0') {
    out.after = true;
    start.remove_suffix(1);
  }
  if (scope.all_namespaces && scope.namespaced) {
    const std::size_t slash = start.find('/');
    if (slash == std::string_view::npos) return {std::string(start), "", false};
    out.namespace_ = std::string(start.substr(0, slash));
    out.name = std::string(start.substr(slash + 1));
    return out;
  }
  out.namespace_ = scope.all_namespaces ? "" : scope.namespace_;
  out.name = std::string(start);
  return out;
}

}  // namespace

std::expected<ListedPage, ApiError> ReadListPage(storage::ObjectStore& store, const ListScope& scope,
                                                 const ListOptions& options,
                                                 const ListFilter& keep) {
  const bool paging = options.limit > 0;
  const bool continuing = !options.continue_token.empty();
  const std::string& rv = options.resource_version;
  std::int64_t revision = 0;  // 0: the newest
  std::optional<ContinueToken> token;
  storage::ListStart start;
  if (continuing) {
    auto decoded = DecodeContinueToken(options.continue_token);
    if (!decoded) return std::unexpected(BadRequest("invalid continue token: " + decoded.error().Message()));
    if (!rv.empty() && rv != "0") {
      return std::unexpected(
          BadRequest("specifying resource version is not allowed when using continue"));
    }
    token = std::move(*decoded);
    if (token->revision > 0) revision = token->revision;
    start = StartOf(token->start, scope);
  } else if (!rv.empty()) {
    auto parsed = ParseResourceVersion(rv);
    if (!parsed) return std::unexpected(BadRequest("invalid resource version: " + parsed.error().Message()));
    const std::string& match = options.resource_version_match;
    if (match == "Exact" || (match.empty() && paging && *parsed > 0)) revision = *parsed;
  }

  auto failed = [&](const Error& e) -> ApiError {
    if (e.Is(storage::kExpired)) {
      if (token) {
        ApiError expired = ResourceExpired(std::string(kInconsistentContinue));
        expired.list_continue = EncodeContinueToken(token->start, -1);
        return expired;
      }
      return ResourceExpired(std::string(kListTooOld));
    }
    if (e.Is(storage::kResourceVersionTooLarge)) {
      // The store's revision as it is now: revisions only grow, so it is at least the one the
      // page was refused at (the cacher's message likewise names its own revision when it
      // gives up waiting).
      auto current = store.Revision();
      if (!current) return InternalError(current.error().Message());
      return TooLargeResourceVersion(revision, *current);
    }
    return InternalError(e.Message());
  };

  ListedPage out;
  const auto limit = static_cast<std::size_t>(std::max<std::int64_t>(options.limit, 0));
  // Without selectors one read is the page (all objects, unpaged). With them, reads of a bounded
  // size also when unpaged: what one list holds is the objects that match, not all of them.
  std::size_t batch = paging ? limit : keep ? kMaxBatch : 0;
  std::optional<storage::ObjectKey> last;  // the last object looked at
  bool more = false;
  std::int64_t remaining = 0;
  while (true) {
    storage::PageRequest request;
    request.resource = scope.resource;
    request.namespace_ = scope.namespace_;
    request.all_namespaces = scope.all_namespaces;
    request.start = start;
    request.revision = revision;
    request.limit = batch;
    request.count_remaining = paging && !keep;
    auto page = store.ListPage(request);
    if (!page) return std::unexpected(failed(page.error()));
    // Every further read shows the revision of the first.
    revision = page->revision;
    more = page->more;
    remaining = page->remaining;
    if (!keep) {
      // Without selectors one read is the page (at most `limit` objects): taken whole.
      out.items = std::move(page->items);
      if (!out.items.empty()) last = out.items.back().key;
      break;
    }
    for (storage::StoredObject& item : page->items) {
      if (paging && out.items.size() >= limit) {
        more = true;  // the page is full and this object follows it
        break;
      }
      last = item.key;
      if (keep(item)) out.items.push_back(std::move(item));
    }
    if (!more || (paging && out.items.size() >= limit)) break;
    if (batch < kMaxBatch) batch = std::min(batch * 2, kMaxBatch);
    start = storage::ListStart{last->namespace_, last->name, true};
  }
  out.revision = revision;
  if (more && paging) {
    out.continue_token = EncodeContinueToken(KeyBelowPrefix(*last, scope) + '\0', revision);
    if (!keep) out.remaining_item_count = remaining;
  }
  return out;
}

}  // namespace podlimits::apiserver
