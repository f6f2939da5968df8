// The OpenAPI documents kube-apiserver publishes, as kubectl reads them:
//
//   GET /openapi/v3              the index: {"paths": {"api/v1": {"serverRelativeURL":
//                                "/openapi/v3/api/v1?hash=H"}, ...}}, one entry per served group
//                                version, H the document's hash (SHA-512, upper-case hex)
//   GET /openapi/v3/api/v1?hash=H  that group version's document: the paths of its resources
//                                (x-kubernetes-action, x-kubernetes-group-version-kind, the
//                                fieldValidation parameter on writes, the patch types on PATCH)
//                                and components.schemas for every served kind and everything it
//                                references (openapi_schemas.h)
//   GET /openapi/v2              the same as one swagger 2.0 document with `definitions`
//
// kube-openapi's handlers are the reference (handler3 for v3, handler for v2): ETag is the
// quoted hash and If-None-Match answers 304; a v3 document fetched with its current hash is
// `Cache-Control: public, immutable` with an Expires a year on, with an old hash a 301 to the
// current URL; an unknown group version is 404 (kube-aggregator). kubectl's --validate=strict
// looks for the fieldValidation parameter on the kind's PATCH, `kubectl apply` computes its
// strategic merge patch from the schemas when the PATCH offers that type, and `kubectl explain`
// prints the schemas. /openapi/v2 is also served in gnostic's protobuf (openapi_protobuf.h),
// the one form client-go's OpenAPISchema() accepts; the v3 documents are JSON only (what
// kubectl asks for), so a client that accepts only their protobuf form gets 406.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "http/https_server.h"

namespace podlimits::apiserver {

// The response for GET /openapi/v3[/...] and /openapi/v2, or nullopt for another path.
std::optional<http::HttpResponse> OpenApi(const http::HttpRequest& request);

// The hash the v3 index names a group version's document by ("api/v1"), "" if not served.
std::string OpenApiV3DocumentHash(std::string_view group_version);

// A document's hash as kube-openapi computes it (SHA-512 of the bytes, upper-case hex).
std::string OpenApiHash(std::string_view document);

}  // namespace podlimits::apiserver
