// PUT and PATCH of stored objects: the candidate (the body, or the stored object with the patch
// applied) goes through admission like a create, then the update strategy of its resource
// decides what may change:
//
//   every resource  metadata.name is the URL's; uid, creationTimestamp, deletion fields and the
//                   status are the stored ones (the status has its own subresource); a
//                   resourceVersion in the body must be the stored one (409 Conflict otherwise)
//   pods            only metadata changes: a changed spec is the apiserver's Forbidden
//                   ("pod updates may not change fields other than ..."); podlimits does not
//                   update a running container's image either, so that is refused the same way
//   configmaps, secrets  nothing of data, binaryData or type once immutable is set
//
// An update that changes nothing is not written (the resourceVersion stays), as upstream.
#include <fmt/format.h>

#include "api/defaults.h"
#include "admission/pod_security.h"
#include "api/json_codec.h"
#include "api/objects.h"
#include "apiserver/patch.h"
#include "apiserver/rest_handler.h"
#include "apiserver/rest_response.h"
#include "apiserver/served_resources.h"
#include "apiserver/stored_object.h"

namespace podlimits::apiserver {

using api::Node;

namespace {

constexpr std::string_view kServerOwnedMeta[] = {"uid",
                                                 "creationTimestamp",
                                                 "resourceVersion",
                                                 "generation",
                                                 "deletionTimestamp",
                                                 "deletionGracePeriodSeconds",
                                                 "managedFields"};

constexpr std::string_view kPodUpdateForbidden =
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
    "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set "
    "to 1 if it was previously negative)";

std::string Str(const Node* n) { return n && n->IsString() ? n->scalar : std::string(); }

std::string Json(const Node* n) { return n ? api::EncodeJson(*n, 0) : std::string("null"); }

ApiError InvalidField(std::string_view kind, std::string_view name, field::Error error) {
  field::ErrorList errors;
  errors.push_back(std::move(error));
  ApiError e = Invalid(kind, name, errors);
  return e;
}

}  // namespace

HttpResponse RestHandler::Update(const HttpRequest& request, const RequestInfo& info) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  const ObjectKey key{info.resource, resource.namespaced ? info.namespace_ : "", info.name};
  auto type = request.headers.find("content-type");
  const std::string content_type = type == request.headers.end() ? "" : type->second;
  std::optional<PatchType> patch_type;
  if (info.verb == "patch") {
    patch_type = PatchTypeOf(content_type);
    if (!patch_type) {
      return UnsupportedMediaType({"application/json-patch+json", "application/merge-patch+json",
                                   "application/strategic-merge-patch+json"})
          .Response();
    }
  } else if (!content_type.starts_with("application/json")) {
    return UnsupportedMediaType({"application/json", "application/yaml"}).Response();
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto loaded = Load(key);
    if (auto* missing = std::get_if<HttpResponse>(&loaded)) return std::move(*missing);
    StoredObject* got = &std::get<Loaded>(loaded).stored;
    Node* stored = &std::get<Loaded>(loaded).tree;

    Node candidate;
    if (patch_type) {
      auto patched = ApplyPatch(*stored, *patch_type, request.body);
      if (!patched) {
        ApiError e;
        e.code = 422;
        e.reason = "Invalid";
        e.message = patched.error();
        return e.Response();
      }
      candidate = std::move(*patched);
    } else {
      auto parsed = api::ParseJsonStream(request.body);
      if (!parsed || parsed->size() != 1 || !(*parsed)[0].IsObject()) {
        return BadRequest("the body of the request was in an unknown format - accepted media "
                          "types include: application/json, application/yaml")
            .Response();
      }
      candidate = std::move((*parsed)[0]);
    }
    if (!candidate.IsObject()) return BadRequest("the patched object is not an object").Response();
    const std::string body_name = Str(candidate.FindPath({"metadata", "name"}));
    if (body_name != info.name) {
      return BadRequest(fmt::format("the name of the object ({}) does not match the name on the "
                                    "URL ({})",
                                    body_name, info.name))
          .Response();
    }
    const std::string precondition = Str(candidate.FindPath({"metadata", "resourceVersion"}));
    if (!precondition.empty() && precondition != std::to_string(got->revision)) {
      return Conflict(info.resource, info.name, ModifiedConflictReason()).Response();
    }
    // What the server owns is not the client's to set: admitted without it, restored after.
    Node& meta = candidate.Ensure("metadata");
    for (std::string_view field : kServerOwnedMeta) meta.Erase(field);
    candidate.Erase("status");
    auto admitted = Admit(request, info, api::EncodeJson(candidate, 0));
    if (auto* refused = std::get_if<HttpResponse>(&admitted)) return std::move(*refused);
    Admitted& a = std::get<Admitted>(admitted);
    Node next = std::move(a.object);
    Node& next_meta = next.Ensure("metadata");
    const Node* stored_meta = stored->Find("metadata");
    for (std::string_view field : kServerOwnedMeta) {
      next_meta.Erase(field);
      if (const Node* v = stored_meta ? stored_meta->Find(field) : nullptr) next_meta.Set(field, *v);
    }
    next.Erase("status");
    if (const Node* status = stored->Find("status")) next.Set("status", *status);

    if (info.resource == "pods" && Json(next.Find("spec")) != Json(stored->Find("spec"))) {
      return InvalidField(resource.kind, info.name,
                          field::Forbidden(field::Path("spec"), std::string(kPodUpdateForbidden)))
          .Response();
    }
    if ((info.resource == "configmaps" || info.resource == "secrets") &&
        stored->Find("immutable") && stored->Find("immutable")->AsBool()) {
      for (const char* f : {"data", "binaryData", "type", "immutable"}) {
        if (Json(next.Find(f)) != Json(stored->Find(f))) {
          return InvalidField(resource.kind, info.name,
                              field::Forbidden(field::Path(f),
                                               "field is immutable when `immutable` is set"))
              .Response();
        }
      }
    }
    if (info.resource == "namespaces") {
      // Tightening Pod Security's enforce level dry-runs the namespace's pods.
      auto listed = store_.List("pods", info.name, false);
      if (!listed) return InternalResponse(listed.error());
      std::vector<api::Pod> pods;
      for (const auto& item : listed->items) {
        if (auto pod = ParseStoredObject(item.data)) pods.push_back(api::ReadPod(*pod));
      }
      const admission::psa::PodSecurity default_security;
      const admission::psa::PodSecurity& security =
          options_.pod_security ? *options_.pod_security : default_security;
      const api::Namespace before = api::ReadNamespace(*stored);
      auto decision = security.ValidateNamespace(api::ReadNamespace(next), &before, &pods);
      a.warnings.insert(a.warnings.end(), decision.warnings.begin(), decision.warnings.end());
    }
    api::CanonicalizeOrder(next, resource.kind);
    Node unchanged = *stored;
    api::CanonicalizeOrder(unchanged, resource.kind);
    if (api::EncodeJson(next, 0) == api::EncodeJson(unchanged, 0)) {
      HttpResponse r = JsonResponse(200, std::move(got->data));
      AddWarnings(r, a.warnings);
      return r;
    }
    auto written = store_.Update(key, got->revision, [&](std::int64_t rv) {
      return RenderStoredObject(next, resource.kind, rv);
    });
    if (!written) {
      if (written.error().kind == StoreError::Kind::kConflict && precondition.empty()) continue;
      if (written.error().kind == StoreError::Kind::kConflict) {
        return Conflict(info.resource, info.name, ModifiedConflictReason()).Response();
      }
      if (written.error().kind == StoreError::Kind::kNotFound) {
        return NotFound(info.resource, info.name).Response();
      }
      return InternalResponse(written.error());
    }
    HttpResponse r = JsonResponse(200, std::move(written->data));
    AddWarnings(r, a.warnings);
    return r;
  }
  return Conflict(info.resource, info.name, ModifiedConflictReason()).Response();
}

}  // namespace podlimits::apiserver
