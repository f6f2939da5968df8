// deployments/scale and replicasets/scale: the autoscaling/v1 Scale view of an object's
// spec.replicas (pkg/registry/apps/deployment/storage's ScaleREST). GET answers the Scale;
// PUT and PATCH (kubectl scale sends a merge patch of the Scale) change spec.replicas only, with
// the generation bumped as any spec change does, after the Scale's own validation:
// `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or
// equal to 0`.
#include <fmt/format.h>

#include "api/label_selector.h"
#include "apiserver/patch.h"
#include "apiserver/request_body.h"
#include "apiserver/rest_handler.h"
#include "apiserver/rest_response.h"
#include "discovery/served_resources.h"
#include "codec/json_codec.h"
#include "listwatch/stored_object.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

// The Scale of a stored Deployment or ReplicaSet at `revision`.
Node ScaleOf(const Node& object, std::int64_t revision) {
  Node scale = Node::Object();
  scale.Set("kind", Node::String("Scale"));
  scale.Set("apiVersion", Node::String("autoscaling/v1"));
  Node meta = Node::Object();
  for (const char* key : {"name", "namespace", "uid"}) {
    meta.Set(key, Node::String(codec::StringOf(object.FindPath({"metadata", key}))));
  }
  meta.Set("resourceVersion", Node::String(std::to_string(revision)));
  meta.Set("creationTimestamp",
           Node::String(codec::StringOf(object.FindPath({"metadata", "creationTimestamp"}))));
  scale.Set("metadata", std::move(meta));
  Node spec = Node::Object();
  spec.Set("replicas", Node::Int(codec::IntOf(object.FindPath({"spec", "replicas"})).value_or(0)));
  scale.Set("spec", std::move(spec));
  Node status = Node::Object();
  status.Set("replicas",
             Node::Int(codec::IntOf(object.FindPath({"status", "replicas"})).value_or(0)));
  const std::string selector = api::FormatLabelSelector(object.FindPath({"spec", "selector"}));
  if (selector != "<none>") status.Set("selector", Node::String(selector));
  scale.Set("status", std::move(status));
  return scale;
}

}  // namespace

http::HttpResponse RestHandler::Scale(const http::HttpRequest& request, const RequestInfo& info) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  const storage::ObjectKey key{info.resource, info.namespace_, info.name};
  if (info.verb != "get" && info.verb != "update" && info.verb != "patch") {
    return MethodNotSupported(info.resource + "/scale", info.verb).Response();
  }
  std::optional<PatchType> patch_type;
  if (info.verb == "patch") {
    auto type = request.headers.find("content-type");
    patch_type = PatchTypeOf(type == request.headers.end() ? "" : type->second);
    if (!patch_type) {
      return UnsupportedMediaType({"application/json-patch+json", "application/merge-patch+json",
                                   "application/strategic-merge-patch+json"})
          .Response();
    }
  }
  std::string put_body;
  if (info.verb == "update") {
    auto decoded = ReadRequestBodyAsJson(request);
    if (!decoded) return decoded.error().Response();
    put_body = std::move(*decoded);
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto loaded = Load(key);
    if (auto* missing = std::get_if<http::HttpResponse>(&loaded)) return std::move(*missing);
    Loaded& l = std::get<Loaded>(loaded);
    Node current = ScaleOf(l.tree, l.stored.revision);
    if (info.verb == "get") return JsonResponse(200, codec::EncodeJson(current, 0));
    Node wanted;
    if (patch_type) {
      auto patched = ApplyPatch(current, *patch_type, request.body);
      if (!patched) return InvalidPatch(patched.error().Message()).Response();
      wanted = std::move(*patched);
    } else {
      auto parsed = ParseOneJsonObject(put_body);
      if (!parsed || !parsed->IsObject()) {
        return BadRequest("the body of the request was in an unknown format - accepted media "
                          "types include: application/json, application/yaml")
            .Response();
      }
      wanted = std::move(*parsed);
    }
    const std::string precondition =
        codec::StringOf(wanted.FindPath({"metadata", "resourceVersion"}));
    if (!precondition.empty() && precondition != std::to_string(l.stored.revision)) {
      return Conflict(QualifiedResource(info.resource), info.name, ModifiedConflictReason())
          .Response();
    }
    const Node* replicas_node = wanted.FindPath({"spec", "replicas"});
    const std::optional<std::int64_t> replicas = codec::IntOf(replicas_node);
    field::ErrorList errs;
    if (replicas_node && !replicas) {
      errs.push_back(field::Invalid(field::Path("spec").Child("replicas"),
                                    field::Json{codec::EncodeJson(*replicas_node, 0)},
                                    "must be an integer"));
    } else if (replicas.value_or(0) < 0) {
      errs.push_back(field::Invalid(field::Path("spec").Child("replicas"), *replicas,
                                    "must be greater than or equal to 0"));
    }
    if (!errs.empty()) {
      ApiError e = Invalid("Scale", info.name, errs);
      e.group = "autoscaling";
      e.message = fmt::format("Scale.autoscaling {} is invalid: {}", field::GoQuote(info.name),
                              field::Aggregate(errs));
      return e.Response();
    }
    Node next = l.tree;
    const std::int64_t before = codec::IntOf(next.FindPath({"spec", "replicas"})).value_or(0);
    if (replicas.value_or(0) == before) return JsonResponse(200, codec::EncodeJson(current, 0));
    next.Ensure("spec").Set("replicas", Node::Int(replicas.value_or(0)));
    const std::int64_t generation =
        codec::IntOf(next.FindPath({"metadata", "generation"})).value_or(0);
    next.Ensure("metadata").Set("generation", Node::Int(generation + 1));
    auto written = store_.Update(key, l.stored.revision, [&](std::int64_t rv) {
      return RenderStoredObject(next, resource.kind, rv);
    });
    if (!written) {
      // Changed since the load (a controller's status write): again from the load, as in
      // update.cc; a resourceVersion the request pinned is answered 409 above on the next pass.
      if (written.error().Is(storage::kConflict)) continue;
      return InternalResponse(written.error());
    }
    auto tree = ParseStoredObject(written->data);
    if (!tree) return InternalResponse(Failure("scale", {}, "stored object does not parse").error());
    return JsonResponse(200, codec::EncodeJson(ScaleOf(*tree, written->revision), 0));
  }
  return Conflict(QualifiedResource(info.resource), info.name, ModifiedConflictReason()).Response();
}

}  // namespace podlimits::apiserver
