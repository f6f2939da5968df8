// API discovery as kubectl 1.32 reads it: aggregated discovery (apidiscovery.k8s.io/v2, or
// v2beta1, when the Accept header asks for an APIGroupDiscoveryList) and the legacy documents
// (/api APIVersions, /api/v1 APIResourceList, /apis APIGroupList). Only the core group is
// served; /apis lists no groups.
#pragma once

#include <optional>
#include <string_view>

#include "http/https_server.h"

namespace podlimits::apiserver {

// The discovery response for GET `request` (/api, /api/v1, /apis), or nullopt for another path.
std::optional<http::HttpResponse> Discovery(const http::HttpRequest& request);

}  // namespace podlimits::apiserver
