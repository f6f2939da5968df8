// /openapi/v3 as far as kubectl needs it to hand validation to the server: the index naming the
// core group's document, and that document's paths with the operations of each served resource
// (x-kubernetes-group-version-kind, x-kubernetes-action) and the `fieldValidation` query
// parameter on create, update and patch. kubectl's default --validate=strict looks for that
// parameter on the kind's PATCH operation and then sends fieldValidation=Strict, so podlimits'
// strict decoding answers it. The component schemas (what `kubectl explain` reads) are not
// published yet.
#pragma once

#include <optional>

#include "http/https_server.h"

namespace podlimits::apiserver {

// The response for GET /openapi/v3 and /openapi/v3/api/v1, or nullopt for another path.
std::optional<http::HttpResponse> OpenApi(const http::HttpRequest& request);

}  // namespace podlimits::apiserver
