// POST pods/NAME/eviction: a policy/v1 Eviction, as the apiserver's eviction subresource
// handles it (kubectl drain sends one per pod, as protobuf). podlimits serves no
// PodDisruptionBudgets, so no budget can refuse an eviction: every eviction is the delete the
// Eviction carries (its deleteOptions), after the pod is marked with the DisruptionTarget
// condition (reason EvictionByEvictionAPI), and is answered with a Status of Success (201).
//
//   name     the Eviction's metadata.name must be the URL's
//            ("name in URL does not match name in Eviction object", 400)
//   options  deleteOptions' preconditions are checked against the pod when the condition is
//            added (409 with the eviction's own wording); a resourceVersion precondition is
//            moved on to the version that write made, and then is the delete's
//   retries  a write that lost a race with another writer (the node publishing the pod's
//            status) is made again from the new object, unless the client pinned a
//            resourceVersion
#include <fmt/format.h>

#include "api/decode.h"
#include "api/protobuf_object.h"
#include "api/schema.h"
#include "apiserver/pod_deletion.h"
#include "apiserver/rest_handler.h"
#include "apiserver/rest_response.h"
#include "listwatch/stored_object.h"
#include "codec/json_codec.h"
#include "printers/human_duration.h"

namespace podlimits::apiserver {

using codec::Node;

namespace {

// The pod's DisruptionTarget condition, replaced or appended (podutil.UpdatePodCondition: the
// transition time moves only when the status changes).
void SetDisruptionTarget(Node& pod, const std::string& now) {
  Node condition = Node::Object();
  condition.Set("type", Node::String("DisruptionTarget"));
  condition.Set("status", Node::String("True"));
  condition.Set("lastProbeTime", Node::Null());
  condition.Set("lastTransitionTime", Node::String(now));
  condition.Set("reason", Node::String("EvictionByEvictionAPI"));
  condition.Set("message", Node::String("Eviction API: evicting"));
  Node& conditions = pod.Ensure("status").Ensure("conditions", Node::Kind::kArray);
  for (Node& c : conditions.items) {
    if (codec::StringOf(c.Find("type")) != "DisruptionTarget") continue;
    if (codec::StringOf(c.Find("status")) == "True") {
      if (const Node* t = c.Find("lastTransitionTime")) condition.Set("lastTransitionTime", *t);
    }
    c = std::move(condition);
    return;
  }
  conditions.items.push_back(std::move(condition));
}

}  // namespace

http::HttpResponse RestHandler::Evict(const http::HttpRequest& request, const RequestInfo& info) {
  auto type = request.headers.find("content-type");
  const std::string content_type = type == request.headers.end() ? "" : type->second;
  std::optional<Node> eviction;
  if (content_type.starts_with(api::kProtobufContentType)) {
    auto decoded = api::DecodeProtobufObject(request.body, api::Schema::Objects());
    if (!decoded) return BadRequest(decoded.error().Message()).Response();
    eviction = std::move(*decoded);
  } else if (content_type.starts_with("application/json")) {
    auto parsed = ParseOneJsonObject(request.body);
    if (!parsed) {
      return BadRequest(
                 "the body of the request was in an unknown format - accepted media "
                 "types include: application/json, application/vnd.kubernetes.protobuf")
          .Response();
    }
    auto decoded = api::DecodeObject(api::Schema::Objects(), "Eviction", std::move(*parsed),
                                     "request", 0, FieldValidationOf(request));
    if (auto* err = std::get_if<api::DecodeError>(&decoded)) {
      return BadRequest(err->message).Response();
    }
    eviction = std::move(std::get<api::DecodedObject>(decoded).tree);
  } else {
    return UnsupportedMediaType({"application/json", std::string(api::kProtobufContentType)})
        .Response();
  }
  // The subresource's kind, in the versions it is served in (an absent kind or apiVersion is
  // the endpoint's, as the apiserver defaults them).
  const std::string kind = codec::StringOf(eviction->Find("kind"));
  const std::string version = codec::StringOf(eviction->Find("apiVersion"));
  if ((!kind.empty() && kind != "Eviction") ||
      (!version.empty() && version != "policy/v1" && version != "policy/v1beta1")) {
    return BadRequest(fmt::format("the body of the request must be a policy/v1 Eviction, not {} "
                                  "{}",
                                  version, kind))
        .Response();
  }
  if (codec::StringOf(eviction->FindPath({"metadata", "name"})) != info.name) {
    return BadRequest("name in URL does not match name in Eviction object").Response();
  }
  if (const std::string ns = codec::StringOf(eviction->FindPath({"metadata", "namespace"}));
      !ns.empty() && ns != info.namespace_) {
    return BadRequest(
               "the namespace of the provided object does not match the namespace sent on the "
               "request")
        .Response();
  }
  const Node* carried = eviction->Find("deleteOptions");
  auto options = ParseDeleteOptions(
      carried && carried->IsObject() ? codec::EncodeJson(*carried, 0) : std::string(), std::nullopt);
  if (!options) return BadRequest(options.error().Message()).Response();
  const bool pinned = !options->precondition_resource_version.empty();
  std::optional<storage::DryRunScope> dry_run;  // the condition too is only what would be written
  if (options->dry_run) dry_run.emplace();

  const storage::ObjectKey key{"pods", info.namespace_, info.name};
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto loaded = Load(key);
    if (auto* missing = std::get_if<http::HttpResponse>(&loaded)) return std::move(*missing);
    Loaded& pod = std::get<Loaded>(loaded);
    const std::string uid = codec::StringOf(pod.tree.FindPath({"metadata", "uid"}));
    if (!options->precondition_uid.empty() && options->precondition_uid != uid) {
      return Conflict("Pod", info.name,
                      fmt::format("the UID in the precondition ({}) does not match the UID in "
                                  "record ({}). The object might have been deleted and then "
                                  "recreated",
                                  options->precondition_uid, uid))
          .Response();
    }
    if (pinned && options->precondition_resource_version != std::to_string(pod.stored.revision)) {
      return Conflict("Pod", info.name,
                      fmt::format("the ResourceVersion in the precondition ({}) does not match "
                                  "the ResourceVersion in record ({}). The object might have "
                                  "been modified",
                                  options->precondition_resource_version, pod.stored.revision))
          .Response();
    }
    SetDisruptionTarget(pod.tree, Now());
    auto marked = store_.Update(key, pod.stored.revision, [&](std::int64_t rv) {
      return RenderStoredObject(pod.tree, "Pod", rv);
    });
    if (!marked) {
      if (marked.error().Is(storage::kConflict) && !pinned) continue;
      if (marked.error().Is(storage::kConflict)) {
        return Conflict("pods", info.name, ModifiedConflictReason()).Response();
      }
      if (marked.error().Is(storage::kNotFound)) {
        return NotFound("pods", info.name).Response();
      }
      return InternalResponse(marked.error());
    }
    DeleteOptions deletion = *options;
    if (pinned) deletion.precondition_resource_version = std::to_string(marked->revision);
    RequestInfo pods = info;
    pods.subresource.clear();
    pods.verb = "delete";
    http::HttpResponse deleted = DeleteObject(pods, deletion);
    if (deleted.status != 200) return deleted;
    return JsonResponse(
        201, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})");
  }
  return Conflict("pods", info.name, ModifiedConflictReason()).Response();
}

}  // namespace podlimits::apiserver
