#include "apiserver/apply.h"

#include <fmt/format.h>

#include "codec/json_codec.h"
#include "codec/yaml_codec.h"
#include "fieldmanager/managed_fields.h"

namespace podlimits::apiserver {

using codec::Node;

namespace {

std::string QueryValue(const http::HttpRequest& request, const char* key) {
  auto it = request.query.find(key);
  return it == request.query.end() ? std::string() : it->second;
}

}  // namespace

bool IsApplyPatch(std::string_view content_type) {
  const std::string_view base = content_type.substr(0, content_type.find(';'));
  return base == "application/apply-patch+yaml";
}

std::string WriteManager(const http::HttpRequest& request) {
  if (std::string manager = QueryValue(request, "fieldManager"); !manager.empty()) return manager;
  auto agent = request.headers.find("user-agent");
  return agent == request.headers.end() ? std::string()
                                        : fieldmanager::PrefixFromUserAgent(agent->second);
}

bool ForceApply(const http::HttpRequest& request) { return QueryValue(request, "force") == "true"; }

std::optional<ApiError> CheckWriteOptions(const http::HttpRequest& request, std::string_view verb,
                                          bool apply) {
  const char* options = verb == "create" ? "CreateOptions" : verb == "patch" ? "PatchOptions"
                                                                             : "UpdateOptions";
  field::ErrorList errs;
  const std::string manager = QueryValue(request, "fieldManager");
  if (verb == "patch") {
    if (apply && manager.empty()) {
      errs.push_back(field::Required(field::Path("fieldManager"), "is required for apply patch"));
    }
    if (!apply && request.query.contains("force")) {
      errs.push_back(field::Forbidden(field::Path("force"), "may not be specified for non-apply patch"));
    }
  }
  field::Append(errs, fieldmanager::ValidateFieldManager(manager, field::Path("fieldManager")));
  if (errs.empty()) return std::nullopt;
  ApiError e = Invalid(options, "", errs);
  e.message = fmt::format("{}.meta.k8s.io \"\" is invalid: {}", options, field::Aggregate(errs));
  e.kind = options;
  e.group = "meta.k8s.io";
  return e;
}

fieldmanager::WriteScope WriteScopeOf(const ServedResource& resource, std::string_view subresource,
                                      std::string now) {
  fieldmanager::WriteScope scope;
  scope.kind = std::string(resource.kind);
  scope.api_version = resource.GroupVersion();
  scope.subresource = std::string(subresource);
  scope.now = std::move(now);
  for (const ServedSubresource& sub : resource.subresources) {
    if (sub.name == "status") scope.has_status = true;
  }
  return scope;
}

std::expected<Node, ApiError> ReadApplyConfiguration(const http::HttpRequest& request) {
  // What kubectl and client-go send is JSON: read as JSON when it parses as one object (a
  // fifth of an apply's time through the YAML parser); anything else goes the YAML way, which
  // sigs.k8s.io/yaml takes for JSON too.
  if (const std::size_t first = request.body.find_first_not_of(" \t\r\n");
      first != std::string::npos && request.body[first] == '{') {
    if (auto json = codec::ParseJsonStream(request.body); json && json->size() == 1) {
      return std::move((*json)[0]);
    }
  }
  auto documents = codec::ParseYamlStream(request.body);
  if (!documents) {
    return std::unexpected(
        BadRequest("error decoding patch: " + codec::DescribeYamlError(documents.error())));
  }
  if (documents->empty() || (*documents)[0].node.IsNull()) return Node::Object();
  Node& config = (*documents)[0].node;
  if (!config.IsObject()) {
    return std::unexpected(BadRequest(fmt::format(
        "error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot "
        "unmarshal {} into Go value of type map[string]interface {{}}",
        codec::GoJsonKindName(config))));
  }
  return std::move(config);
}

std::optional<ApiError> CheckManagedFields(std::string_view kind, const Node& object) {
  field::ErrorList errs = fieldmanager::ValidateManagedFields(
      object.FindPath({"metadata", "managedFields"}), field::Path("metadata").Child("managedFields"));
  if (errs.empty()) return std::nullopt;
  return Invalid(kind, codec::StringOf(object.FindPath({"metadata", "name"})), errs);
}

ApiError ApplyConflict(const std::vector<fieldmanager::Conflict>& conflicts) {
  ApiError e;
  e.code = 409;
  e.reason = "Conflict";
  e.message = fieldmanager::ConflictMessage(conflicts);
  for (const auto& c : conflicts) {
    e.causes.push_back({"FieldManagerConflict",
                        "conflict with " + fieldmanager::PrintManager(c.manager),
                        fieldmanager::PathString(c.path)});
  }
  return e;
}

void TrackWrite(const fieldmanager::WriteScope& scope, const Node* live, Node& next,
                const Node* requested, const http::HttpRequest& request) {
  Node managed = fieldmanager::TrackUpdate(scope, live, next, requested, WriteManager(request));
  Node& meta = next.Ensure("metadata");
  if (managed.IsNull()) {
    meta.Erase("managedFields");
  } else {
    meta.Set("managedFields", std::move(managed));
  }
}

}  // namespace podlimits::apiserver
