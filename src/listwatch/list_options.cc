#include "listwatch/list_options.h"

#include <fmt/format.h>

#include <cstdint>

#include "listwatch/request_info.h"
#include "field/field.h"

namespace podlimits::apiserver {
namespace {

std::string Query(const http::HttpRequest& request, const char* key) {
  auto it = request.query.find(key);
  return it == request.query.end() ? std::string() : it->second;
}

// strconv.ParseInt(text, 10, 64), with its error: digits are read in order, so an overflow
// before a stray character is "value out of range", as Go reports it.
Result<std::int64_t> GoParseInt(std::string_view text) {
  auto error = [&](std::string_view why) {
    return Failure(fmt::format("strconv.ParseInt: parsing {}: {}", field::GoQuote(text), why));
  };
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits[0] == '-';
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
  if (digits.empty()) return error("invalid syntax");
  std::uint64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return error("invalid syntax");
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return error("value out of range");
    v = v * 10 + d;
  }
  const std::uint64_t bound = negative ? 9223372036854775808ULL : 9223372036854775807ULL;
  if (v > bound) return error("value out of range");
  return negative ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
}

}  // namespace

std::expected<ListOptions, ApiError> ParseListOptions(const http::HttpRequest& request) {
  ListOptions options;
  options.watch = QueryFlag(request, "watch");
  if (request.query.contains("limit")) {
    auto limit = GoParseInt(Query(request, "limit"));
    if (!limit) return std::unexpected(BadRequest(limit.error().Message()));
    options.limit = *limit;
  }
  options.continue_token = Query(request, "continue");
  options.resource_version = Query(request, "resourceVersion");
  options.resource_version_match = Query(request, "resourceVersionMatch");
  if (request.query.contains("sendInitialEvents")) {
    options.send_initial_events = QueryFlag(request, "sendInitialEvents");
  }
  options.allow_watch_bookmarks = QueryFlag(request, "allowWatchBookmarks");

  field::ErrorList errs = ValidateListOptions(options);
  if (!errs.empty()) {
    ApiError e = Invalid("ListOptions", "", errs);
    e.message = fmt::format("ListOptions.meta.k8s.io \"\" is invalid: {}", field::Aggregate(errs));
    e.group = "meta.k8s.io";
    return std::unexpected(std::move(e));
  }
  return options;
}

namespace {

field::ErrorList ValidateWatchOptions(const ListOptions& options) {
  field::ErrorList errs;
  const field::Path match("resourceVersionMatch");
  const std::string& m = options.resource_version_match;
  if (options.send_initial_events && m != "NotOlderThan") {
    errs.push_back(field::Forbidden(
        match, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
  }
  if (!m.empty()) {
    if (!options.send_initial_events) {
      errs.push_back(field::Forbidden(
          match, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
    }
    if (m != "NotOlderThan") errs.push_back(field::NotSupported(match, m, {"NotOlderThan"}));
    if (!options.continue_token.empty()) {
      errs.push_back(
          field::Forbidden(match, "resourceVersionMatch is forbidden when continue is provided"));
    }
  }
  return errs;
}

}  // namespace

field::ErrorList ValidateListOptions(const ListOptions& options) {
  if (options.watch) return ValidateWatchOptions(options);
  field::ErrorList errs;
  const field::Path match("resourceVersionMatch");
  if (const std::string& m = options.resource_version_match; !m.empty()) {
    if (options.resource_version.empty()) {
      errs.push_back(field::Forbidden(
          match, "resourceVersionMatch is forbidden unless resourceVersion is provided"));
    }
    if (!options.continue_token.empty()) {
      errs.push_back(
          field::Forbidden(match, "resourceVersionMatch is forbidden when continue is provided"));
    }
    if (m != "Exact" && m != "NotOlderThan") {
      errs.push_back(field::NotSupported(match, m, {"Exact", "NotOlderThan", ""}));
    }
    if (m == "Exact" && options.resource_version == "0") {
      errs.push_back(field::Forbidden(
          match, "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
    }
  }
  if (options.send_initial_events) {
    errs.push_back(field::Forbidden(field::Path("sendInitialEvents"),
                                    "sendInitialEvents is forbidden for list"));
  }
  return errs;
}

}  // namespace podlimits::apiserver
