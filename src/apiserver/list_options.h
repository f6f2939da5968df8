// The ListOptions of a list request (not a watch), read from its query as the apiserver's list
// handler reads them, before any object is looked at:
//
//   limit                 strconv.ParseInt's words for one that is not a number: 400
//                         `strconv.ParseInt: parsing "ten": invalid syntax`; 0 or less: no paging
//   continue              the token of the previous page (continue_token.h; decoded with the
//                         list, paged_list.h)
//   resourceVersion       kept as given (paged_list.h reads it)
//   resourceVersionMatch  "", Exact or NotOlderThan
//
// then checked as apimachinery's ValidateListOptions checks them: 422 Invalid on
// `ListOptions.meta.k8s.io ""`, every error at once, e.g.
//
//   ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch
//   is forbidden when continue is provided
//
// (also: forbidden unless resourceVersion is provided; "exact" forbidden for resourceVersion
// "0"; an unsupported value; and sendInitialEvents, which is forbidden for a list).
#pragma once

#include <cstdint>
#include <expected>
#include <string>

#include "apiserver/api_errors.h"
#include "http/https_server.h"

namespace podlimits::apiserver {

struct ListOptions {
  std::int64_t limit = 0;
  std::string continue_token;
  std::string resource_version;
  std::string resource_version_match;
};

std::expected<ListOptions, ApiError> ParseListOptions(const http::HttpRequest& request);

}  // namespace podlimits::apiserver
