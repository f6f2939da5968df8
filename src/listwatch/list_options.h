// The ListOptions of a list or watch request, read from its query as the apiserver's list
// handler reads them (ListResource serves both), before any object is looked at:
//
//   watch                 Go's query bool: anything but "false" (any case) and "0" is true
//   limit                 strconv.ParseInt's words for one that is not a number: 400
//                         `strconv.ParseInt: parsing "ten": invalid syntax`; 0 or less: no paging
//                         (a watch ignores it, as the apiserver's does)
//   continue              the token of the previous page (continue_token.h; decoded with the
//                         list, paged_list.h)
//   resourceVersion       kept as given (paged_list.h and the watch read it)
//   resourceVersionMatch  "", Exact or NotOlderThan
//   sendInitialEvents     absent, or a Go query bool (watch-list: watch_handler.h)
//   allowWatchBookmarks   a Go query bool
//
// then checked as apimachinery's ValidateListOptions checks them with the WatchList feature on
// (kube-apiserver 1.36's default): 422 Invalid on `ListOptions.meta.k8s.io ""`, every error at
// once, e.g.
//
//   ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch
//   is forbidden when continue is provided
//
// A list: resourceVersionMatch forbidden unless resourceVersion is provided, or with continue;
// "exact" forbidden for resourceVersion "0"; an unsupported value; sendInitialEvents forbidden
// for a list. A watch: sendInitialEvents requires resourceVersionMatch NotOlderThan;
// resourceVersionMatch forbidden without sendInitialEvents, or with continue; any other value
// than NotOlderThan unsupported.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>

#include "listwatch/api_errors.h"
#include "field/field.h"
#include "http/https_server.h"

namespace podlimits::apiserver {

struct ListOptions {
  bool watch = false;
  std::int64_t limit = 0;
  std::string continue_token;
  std::string resource_version;
  std::string resource_version_match;
  std::optional<bool> send_initial_events;
  bool allow_watch_bookmarks = false;
};

std::expected<ListOptions, ApiError> ParseListOptions(const http::HttpRequest& request);

// apimachinery's ValidateListOptions (WatchList on): the errors, in its order.
field::ErrorList ValidateListOptions(const ListOptions& options);

}  // namespace podlimits::apiserver
