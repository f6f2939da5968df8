#include "apiserver/access_reviews.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "api/decode.h"
#include "api/schema.h"
#include "apiserver/request_body.h"
#include "apiserver/rest_response.h"
#include "discovery/served_resources.h"
#include "codec/json_codec.h"
#include "field/field.h"
#include "listwatch/api_errors.h"

namespace podlimits::apiserver {

using codec::Node;

namespace {

Node Strings(std::initializer_list<std::string_view> values) {
  Node list = Node::Array();
  for (std::string_view v : values) list.items.push_back(Node::String(std::string(v)));
  return list;
}

// ValidateSelfSubjectAccessReview (k8s.io/kubernetes pkg/apis/authorization/validation): the
// spec is a union of resourceAttributes and nonResourceAttributes, and the metadata is empty.
field::ErrorList AccessReviewErrors(const Node& review) {
  field::ErrorList errors;
  const Node* spec = review.Find("spec");
  const Node* resource = spec ? spec->Find("resourceAttributes") : nullptr;
  const Node* non_resource = spec ? spec->Find("nonResourceAttributes") : nullptr;
  if (resource != nullptr && resource->IsNull()) resource = nullptr;
  if (non_resource != nullptr && non_resource->IsNull()) non_resource = nullptr;
  const field::Path path("spec");
  constexpr std::string_view kUnion =
      "exactly one of nonResourceAttributes or resourceAttributes must be specified";
  if (resource != nullptr && non_resource != nullptr) {
    errors.push_back(field::Invalid(path, field::Json{codec::EncodeJson(*non_resource, 0)},
                                    std::string(kUnion)));
  } else if (resource == nullptr && non_resource == nullptr) {
    errors.push_back(field::Invalid(path, std::string("null"), std::string(kUnion)));
  }
  // Empty as Go compares it: what clients send for an empty ObjectMeta ("creationTimestamp":
  // null) is empty; managedFields are not looked at.
  if (const Node* meta = review.Find("metadata"); meta && meta->IsObject()) {
    const bool set = std::any_of(meta->members.begin(), meta->members.end(), [](const auto& m) {
      return m.key != "managedFields" && !m.value.IsNull();
    });
    if (set) {
      errors.push_back(field::Invalid(field::Path("metadata"),
                                      field::Json{codec::EncodeJson(*meta, 0)}, "must be empty"));
    }
  }
  return errors;
}

// What everything allowed looks like as the rule resolver lists it.
Node EverythingRules() {
  Node status = Node::Object();
  Node resource_rule = Node::Object();
  resource_rule.Set("verbs", Strings({"*"}));
  resource_rule.Set("apiGroups", Strings({"*"}));
  resource_rule.Set("resources", Strings({"*"}));
  Node non_resource_rule = Node::Object();
  non_resource_rule.Set("verbs", Strings({"*"}));
  non_resource_rule.Set("nonResourceURLs", Strings({"*"}));
  status.Ensure("resourceRules", Node::Kind::kArray).items.push_back(std::move(resource_rule));
  status.Ensure("nonResourceRules", Node::Kind::kArray).items.push_back(std::move(non_resource_rule));
  status.Set("incomplete", Node::Bool(false));
  return status;
}

Node UserInfo(const http::HttpRequest& request) {
  Node user = Node::Object();
  user.Set("username", Node::String(request.user));
  Node groups = Node::Array();
  bool authenticated = false;
  for (const std::string& g : request.groups) {
    groups.items.push_back(Node::String(g));
    authenticated = authenticated || g == "system:authenticated";
  }
  if (!authenticated) groups.items.push_back(Node::String("system:authenticated"));
  user.Set("groups", std::move(groups));
  return user;
}

}  // namespace

http::HttpResponse ServeAccessReview(const http::HttpRequest& request, const RequestInfo& info) {
  const ServedResource* resource = FindServedResource(info.group, info.resource);
  if (resource == nullptr || !info.subresource.empty() || !info.name.empty()) {
    return PathNotFound().Response();
  }
  const std::string qualified = std::string(info.resource) + "." + std::string(info.group);
  if (info.verb != "create") return MethodNotSupported(qualified, info.verb).Response();
  auto body = ReadRequestBodyAsJson(request);
  if (!body) return body.error().Response();
  auto tree = ParseOneJsonObject(*body);
  if (!tree) return BadRequest("the body of the request is not one JSON object").Response();
  const std::string kind(resource->kind);
  const std::string api_version = resource->GroupVersion();
  const std::string body_kind = codec::StringOf(tree->Find("kind"));
  const std::string body_version = codec::StringOf(tree->Find("apiVersion"));
  if ((!body_kind.empty() && body_kind != kind) ||
      (!body_version.empty() && body_version != api_version)) {
    return BadRequest(fmt::format("the body of the request must be a {} {}, not {} {}",
                                  api_version, kind, body_version, body_kind))
        .Response();
  }
  auto decoded = api::DecodeObject(api::Schema::Objects(), kind, std::move(*tree), "request", 0,
                                   FieldValidationOf(request));
  if (auto* err = std::get_if<api::DecodeError>(&decoded)) return BadRequest(err->message).Response();
  Node review = std::move(std::get<api::DecodedObject>(decoded).tree);

  Node status = Node::Object();
  if (kind == "SelfSubjectAccessReview") {
    if (field::ErrorList errors = AccessReviewErrors(review); !errors.empty()) {
      return Invalid(kind + "." + std::string(info.group), "", errors).Response();
    }
    status.Set("allowed", Node::Bool(true));
  } else if (kind == "SelfSubjectRulesReview") {
    status = EverythingRules();
  } else {  // SelfSubjectReview
    status.Set("userInfo", UserInfo(request));
  }
  Node answer = Node::Object();
  answer.Set("kind", Node::String(kind));
  answer.Set("apiVersion", Node::String(api_version));
  answer.Set("metadata", Node::Object());
  if (const Node* spec = review.Find("spec")) answer.Set("spec", *spec);
  answer.Set("status", std::move(status));
  return JsonResponse(201, codec::EncodeJson(answer, 0));
}

}  // namespace podlimits::apiserver
