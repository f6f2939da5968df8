// What a request is about, as kube-apiserver's RequestInfoFactory reads it from the path, the
// method and the query: the verb (get, list, watch, create, update, patch, delete), the
// resource, subresource, namespace and name, for the core group's
//
//   /api/v1/{resource}[/{name}[/{subresource}]]                      cluster-scoped, or every
//                                                                    namespace (list, watch)
//   /api/v1/namespaces/{namespace}/{resource}[/{name}[/{subresource}]]
//   /api/v1/namespaces/{name}[/status|/finalize]                     the namespace itself
//                                                                    (namespace_ is its name)
//
// and the same below /apis/{group}/{version}/ for the other groups.
//
// A GET of a collection is a list, or a watch with ?watch=true (or 1); a GET of one object with
// ?watch is a watch of that name (fieldSelector metadata.name), as upstream.
#pragma once

#include <optional>
#include <string>

#include "http/https_server.h"

namespace podlimits::apiserver {

struct RequestInfo {
  std::string verb;         // "get", "list", "watch", "create", "update", "patch", "delete"
  std::string resource;     // "pods"
  std::string subresource;  // "status", "log", "eviction", or ""
  std::string namespace_;   // "" for cluster-scoped resources and all-namespace lists
  std::string name;         // "" for collections
  std::string group = "";   // "" for the core group
  std::string version = "v1";
};

// nullopt for a path that is not a resource path of /api/v1 or /apis/{group}/{version}
// (discovery, /version, ... or a malformed one).
std::optional<RequestInfo> ParseRequestInfo(const http::HttpRequest& request);

// A boolean query parameter as the apiserver converts one (Convert_Slice_string_To_bool):
// absent is false; "false" and "0", in any case, are false; any other value, empty included,
// is true (`?follow` follows).
bool QueryFlag(const http::HttpRequest& request, std::string_view key);

}  // namespace podlimits::apiserver
