#include "listwatch/api_errors.h"

#include <fmt/format.h>

#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

ApiError Make(int code, std::string reason, std::string message, std::string_view name = {},
              std::string_view kind = {}) {
  ApiError e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  e.name = std::string(name);
  e.kind = std::string(kind);
  return e;
}

// The causes' reasons, as field.ErrorType names them (CauseType).
std::string CauseReason(field::ErrorType type) {
  switch (type) {
    case field::ErrorType::kNotFound: return "FieldValueNotFound";
    case field::ErrorType::kRequired: return "FieldValueRequired";
    case field::ErrorType::kDuplicate: return "FieldValueDuplicate";
    case field::ErrorType::kInvalid: return "FieldValueInvalid";
    case field::ErrorType::kNotSupported: return "FieldValueNotSupported";
    case field::ErrorType::kForbidden: return "FieldValueForbidden";
    case field::ErrorType::kTooLong: return "FieldValueTooLong";
    case field::ErrorType::kTooMany: return "FieldValueTooMany";
    case field::ErrorType::kInternal: return "InternalError";
    case field::ErrorType::kTooFew: return "FieldValueTooFew";
  }
  return "FieldValueInvalid";
}

}  // namespace

http::HttpResponse ApiError::Response() const {
  return {code, "application/json", codec::EncodeJson(Status(), 0), {}};
}

codec::Node ApiError::Status() const {
  codec::Node status = codec::Node::Object();
  status.Set("kind", codec::Node::String("Status"));
  status.Set("apiVersion", codec::Node::String("v1"));
  codec::Node metadata = codec::Node::Object();
  if (!list_continue.empty()) metadata.Set("continue", codec::Node::String(list_continue));
  status.Set("metadata", std::move(metadata));
  status.Set("status", codec::Node::String("Failure"));
  status.Set("message", codec::Node::String(message));
  if (!reason.empty()) status.Set("reason", codec::Node::String(reason));  // omitempty
  if (!name.empty() || !kind.empty() || !causes.empty() || retry_after_seconds != 0) {
    codec::Node details = codec::Node::Object();
    if (!name.empty()) details.Set("name", codec::Node::String(name));
    if (!group.empty()) details.Set("group", codec::Node::String(group));
    if (!kind.empty()) details.Set("kind", codec::Node::String(kind));
    if (!causes.empty()) {
      codec::Node list = codec::Node::Array();
      for (const auto& c : causes) {
        codec::Node cause = codec::Node::Object();
        cause.Set("reason", codec::Node::String(c.reason));
        cause.Set("message", codec::Node::String(c.message));
        if (!c.field.empty()) cause.Set("field", codec::Node::String(c.field));  // omitempty
        list.items.push_back(std::move(cause));
      }
      details.Set("causes", std::move(list));
    }
    if (retry_after_seconds != 0) {
      details.Set("retryAfterSeconds", codec::Node::Int(retry_after_seconds));
    }
    status.Set("details", std::move(details));
  }
  status.Set("code", codec::Node::Int(code));
  return status;
}

ApiError NotFound(std::string_view resource, std::string_view name, std::string_view group) {
  const std::string qualified =
      group.empty() ? std::string(resource) : fmt::format("{}.{}", resource, group);
  ApiError e = Make(404, "NotFound", fmt::format("{} {} not found", qualified, field::GoQuote(name)),
                    name, resource);
  e.group = std::string(group);
  return e;
}

ApiError AlreadyExists(std::string_view resource, std::string_view name) {
  return Make(409, "AlreadyExists",
              fmt::format("{} {} already exists", resource, field::GoQuote(name)), name, resource);
}

std::string_view ModifiedConflictReason() {
  return "the object has been modified; please apply your changes to the latest version and try "
         "again";
}

ApiError Conflict(std::string_view resource, std::string_view name, std::string_view why) {
  return Make(409, "Conflict",
              fmt::format("Operation cannot be fulfilled on {} {}: {}", resource,
                          field::GoQuote(name), why),
              name, resource);
}

ApiError Invalid(std::string_view kind, std::string_view name, const field::ErrorList& errors) {
  ApiError e = Make(422, "Invalid",
                    fmt::format("{} {} is invalid: {}", kind, field::GoQuote(name),
                                field::Aggregate(errors)),
                    name, kind);
  for (const auto& err : errors) e.causes.push_back({CauseReason(err.type), err.Body(), err.field});
  return e;
}

ApiError Forbidden(std::string_view resource, std::string_view name, std::string_view why) {
  return Make(403, "Forbidden",
              fmt::format("{} {} is forbidden: {}", resource, field::GoQuote(name), why), name,
              resource);
}

ApiError BadRequest(std::string message) { return Make(400, "BadRequest", std::move(message)); }

ApiError InvalidPatch(std::string message) { return Make(422, "Invalid", std::move(message)); }

ApiError InternalError(std::string_view what) {
  return Make(500, "InternalError", fmt::format("Internal error occurred: {}", what));
}

ApiError CorruptObject(std::string_view resource, std::string_view namespace_,
                       std::string_view name, std::string_view problem) {
  const std::string key = namespace_.empty()
                              ? fmt::format("/registry/{}/{}", resource, name)
                              : fmt::format("/registry/{}/{}/{}", resource, namespace_, name);
  return InternalError(fmt::format("StorageError: corrupt object, Code: 7, Key: {}, "
                                   "ResourceVersion: 0, AdditionalErrorMsg: object not "
                                   "decodable: {}",
                                   key, problem));
}

ApiError Unauthorized() { return Make(401, "Unauthorized", "Unauthorized"); }

ApiError PathNotFound() {
  return Make(404, "NotFound", "the server could not find the requested resource");
}

ApiError RequestEntityTooLarge(std::size_t limit) {
  return Make(413, "RequestEntityTooLarge",
              fmt::format("Request entity too large: limit is {}", limit));
}

ApiError MethodNotSupported(std::string_view resource, std::string_view verb) {
  return Make(405, "MethodNotAllowed",
              fmt::format("{} is not supported on resources of kind {}", verb,
                          field::GoQuote(resource)),
              {}, resource);
}

ApiError ResourceExpired(std::string message) { return Make(410, "Expired", std::move(message)); }

ApiError TooLargeResourceVersion(std::int64_t asked, std::int64_t current) {
  ApiError e = Make(504, "Timeout",
                    fmt::format("Timeout: Too large resource version: {}, current: {}", asked,
                                current));
  e.causes.push_back({"ResourceVersionTooLarge", "Too large resource version", ""});
  e.retry_after_seconds = 1;
  return e;
}

ApiError UnsupportedMediaType(const std::vector<std::string>& accepted) {
  std::string list;
  for (const auto& t : accepted) list += (list.empty() ? "" : ", ") + t;
  return Make(415, "UnsupportedMediaType",
              "the body of the request was in an unknown format - accepted media types "
              "include: " + list);
}

http::HttpResponse ListenerRefusal(int status, std::string_view message) {
  switch (status) {
    case 401:
      return Unauthorized().Response();
    case 413:
      return RequestEntityTooLarge(http::kMaxRequestBodyBytes).Response();
    case 400:
      return BadRequest(std::string(message)).Response();
    default:
      return InternalError(message).Response();
  }
}

}  // namespace podlimits::apiserver
