// The apiserver's error responses (k8s.io/apimachinery/pkg/api/errors): a Status object with the
// HTTP code, the reason kubectl prints in "Error from server (REASON): ...", and the exact
// message, plus the details (name, kind, causes) clients read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codec/node.h"
#include "field/field.h"
#include "http/https_server.h"

namespace podlimits::apiserver {

struct StatusCause {
  std::string reason;   // "FieldValueInvalid", ...
  std::string message;  // "Invalid value: ..."
  std::string field;    // "spec.containers[0].image"
};

struct ApiError {
  int code = 500;
  std::string reason;   // "NotFound", "AlreadyExists", "Conflict", "Invalid", ...
  std::string message;
  // details; kind is the resource for NotFound/AlreadyExists/Conflict, the Kind for Invalid.
  std::string name;
  std::string group;  // the resource's API group, "" for the core group
  std::string kind;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;  // details.retryAfterSeconds, when not 0
  // The Status's metadata.continue: the token a 410 for an expired continue token offers to go
  // on with (inconsistently).
  std::string list_continue;

  http::HttpResponse Response() const;  // the Status object as the response body
  codec::Node Status() const;       // the Status object (a watch's ERROR event carries it)
};

// `pods "web" not found`; in another group the resource is qualified by it:
// `leases.coordination.k8s.io "n1" not found`.
ApiError NotFound(std::string_view resource, std::string_view name, std::string_view group = "");
// `pods "web" already exists`
ApiError AlreadyExists(std::string_view resource, std::string_view name);
// `Operation cannot be fulfilled on pods "web": the object has been modified; please apply your
// changes to the latest version and try again`
ApiError Conflict(std::string_view resource, std::string_view name, std::string_view why);
std::string_view ModifiedConflictReason();
// `Pod "web" is invalid: [spec...: ..., ...]` with a cause per field error.
ApiError Invalid(std::string_view kind, std::string_view name, const field::ErrorList& errors);
// `pods "web" is forbidden: ...`
ApiError Forbidden(std::string_view resource, std::string_view name, std::string_view why);
ApiError BadRequest(std::string message);
// 422 Invalid with the patch's own error as the message: a patch that cannot be applied to the
// object (the apiserver's patcher answers so, not 400).
ApiError InvalidPatch(std::string message);
// 500 `Internal error occurred: ...`
ApiError InternalError(std::string_view what);
// 500 for an object whose stored bytes do not decode, in the words the apiserver reports a
// corrupt object with (storage.NewCorruptObjError through NewInternalError), its key naming it:
// `Internal error occurred: StorageError: corrupt object, Code: 7, Key:
// /registry/pods/default/web, ResourceVersion: 0, AdditionalErrorMsg: object not decodable:
// PROBLEM`. `namespace_` is "" for a cluster-scoped object.
ApiError CorruptObject(std::string_view resource, std::string_view namespace_,
                       std::string_view name, std::string_view problem);
// 401 `Unauthorized`: no client certificate of the node's CA and no valid token.
ApiError Unauthorized();
// 404 for a path that names no resource: `the server could not find the requested resource`.
ApiError PathNotFound();
// 413 `Request entity too large: limit is 3145728`.
ApiError RequestEntityTooLarge(std::size_t limit);
// The listener's own refusals (http::HttpsServerOptions::refusal) as kube-apiserver's Status
// objects: 401 Unauthorized, 413 RequestEntityTooLarge, 400 BadRequest, 500 InternalError.
http::HttpResponse ListenerRefusal(int status, std::string_view message);
// `delete is not supported on resources of kind "nodes"` (MethodNotAllowed, 405)
ApiError MethodNotSupported(std::string_view resource, std::string_view verb);
// Gone: `too old resource version: 5 (20)` (Expired, 410)
ApiError ResourceExpired(std::string message);
// 504 `Timeout: Too large resource version: 50, current: 12`, with the cause
// ResourceVersionTooLarge and a retry after a second (storage's TooLargeResourceVersionError):
// a read at a revision the store has not reached.
ApiError TooLargeResourceVersion(std::int64_t asked, std::int64_t current);
// 415: the body's content type is not one of `accepted` (negotiation's
// NewUnsupportedMediaTypeError).
ApiError UnsupportedMediaType(const std::vector<std::string>& accepted);

}  // namespace podlimits::apiserver
