// What every write goes through: the request body decoded and admitted in the context of its
// namespace (the Namespace and its LimitRanges), and the stored object a write starts from.
#include "apiserver/rest_handler.h"

#include <fmt/format.h>

#include "api/decode.h"
#include "api/schema.h"
#include "apiserver/rest_response.h"
#include "discovery/served_resources.h"
#include "codec/json_codec.h"
#include "field/field.h"
#include "listwatch/api_errors.h"
#include "listwatch/stored_object.h"
#include "validation/workloads.h"

namespace podlimits::apiserver {

using codec::Node;

std::variant<http::HttpResponse, RestHandler::Admitted> RestHandler::Admit(
    const http::HttpRequest& request, const RequestInfo& info, std::string_view body,
    const field::ErrorList& update_errors) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  api::DecodeOptions decode;
  decode.field_validation = FieldValidationOf(request);
  decode.kinds = {std::string(resource.kind)};
  std::vector<api::DecodeResult> stream;
  // What the object's namespace holds that admission reads: the Namespace (Pod Security's
  // labels) and its LimitRanges, ahead of the object as a stream of `admit` would have them.
  if (resource.namespaced) {
    auto ns = store_.Get({"namespaces", "", info.namespace_});
    if (!ns) {
      if (ns.error().Is(storage::kNotFound)) {
        return NotFound("namespaces", info.namespace_).Response();
      }
      return InternalResponse(ns.error());
    }
    // False for a damaged object: admission without it (a LimitRange left out) would let
    // through what it refuses.
    auto add = [&](const std::string& kind, const std::string& data) {
      auto tree = ParseStoredObject(data);
      if (!tree) return false;
      stream.push_back(api::DecodeObject(api::Schema::Objects(), kind, std::move(*tree), "store",
                                         0, api::FieldValidation::kIgnore));
      return true;
    };
    // NamespaceLifecycle: nothing new in a namespace being deleted (updates go on).
    if (info.verb == "create") {
      if (auto ns_tree = ParseStoredObject(ns->data);
          ns_tree && ns_tree->FindPath({"metadata", "deletionTimestamp"})) {
        std::string name;
        if (auto body_tree = codec::ParseJsonStream(body); body_tree && body_tree->size() == 1) {
          if (const Node* n = (*body_tree)[0].FindPath({"metadata", "name"})) name = n->scalar;
        }
        return Forbidden(info.resource, name,
                         fmt::format("unable to create new content in namespace {} because it is "
                                     "being terminated",
                                     info.namespace_))
            .Response();
      }
    }
    if (!add("Namespace", ns->data)) return CorruptStoredObject(*ns).Response();
    auto ranges = store_.List("limitranges", info.namespace_, false);
    if (!ranges) return InternalResponse(ranges.error());
    for (const auto& lr : ranges->items) {
      // An update of a LimitRange is admitted without its stored self.
      if (info.resource == "limitranges" && lr.key.name == info.name) continue;
      if (!add("LimitRange", lr.data)) return CorruptStoredObject(lr).Response();
    }
  }
  const std::size_t context = stream.size();
  auto decoded = api::DecodeManifests("request", body, decode);
  if (decoded.size() != 1) {
    return BadRequest("the request body must hold exactly one object").Response();
  }
  if (auto* err = std::get_if<api::DecodeError>(&decoded[0])) {
    return BadRequest(err->message).Response();
  }
  auto& object = std::get<api::DecodedObject>(decoded[0]);
  // The URL's namespace is the object's (rest.BeforeCreate / EnsureObjectNamespaceMatchesRequest).
  if (resource.namespaced) {
    Node& meta = object.tree.Ensure("metadata");
    const Node* given = meta.Find("namespace");
    if (given && given->IsString() && !given->scalar.empty() && given->scalar != info.namespace_) {
      return BadRequest(
                 "the namespace of the provided object does not match the namespace sent on "
                 "the request")
          .Response();
    }
    meta.Set("namespace", Node::String(info.namespace_));
  }
  Admitted admitted;
  admitted.warnings = object.warnings;
  stream.push_back(std::move(decoded[0]));
  admission::ChainOptions options = options_;
  options.username = request.user;  // Pod Security's exemptions are by user
  std::vector<admission::Outcome> outcomes = admission::RunChain(std::move(stream), options);
  if (outcomes.size() != context + 1) return BadRequest("admission produced no outcome").Response();
  admission::Outcome& outcome = outcomes.back();
  admitted.warnings.insert(admitted.warnings.end(), outcome.warnings.begin(),
                           outcome.warnings.end());
  if (!update_errors.empty() && (outcome.admitted || outcome.reason == "Invalid")) {
    outcome.admitted = false;
    outcome.reason = "Invalid";
    field::Append(outcome.field_errors, update_errors);
    const std::string kind = IsWorkloadResource(info.resource)
                                 ? validation::WorkloadGroupKind(resource.kind)
                                 : std::string(resource.kind);
    outcome.message = fmt::format("{} {} is invalid: {}", kind, field::GoQuote(info.name),
                                  field::Aggregate(outcome.field_errors));
  }
  if (!outcome.admitted) {
    ApiError e;
    if (outcome.reason == "Invalid") {
      // Invalid names the Kind and carries a cause per field: kubectl prints them.
      e = Invalid(resource.kind, outcome.name, outcome.field_errors);
      e.group = std::string(resource.group);
    } else {
      e.code = admission::StatusCode(outcome.reason);
      e.reason = outcome.reason;
      e.name = outcome.name;
      e.kind = info.resource;
    }
    e.message = outcome.message;
    http::HttpResponse r = e.Response();
    AddWarnings(r, admitted.warnings);
    return r;
  }
  admitted.object = std::move(outcome.object);
  return admitted;
}

std::variant<http::HttpResponse, RestHandler::Loaded> RestHandler::Load(const storage::ObjectKey& key) {
  auto got = store_.Get(key);
  if (!got) {
    if (got.error().Is(storage::kNotFound)) {
      const ServedResource* served = FindServedResourceByName(key.resource);
      return NotFound(key.resource, key.name, served ? served->group : "").Response();
    }
    return InternalResponse(got.error());
  }
  auto tree = ParseStoredObject(got->data);
  if (!tree) return CorruptStoredObject(*got).Response();
  return Loaded{std::move(*got), std::move(*tree)};
}

}  // namespace podlimits::apiserver
