// PUT and PATCH of stored objects: the candidate (the body in JSON, YAML or protobuf:
// request_body.h; or the stored object with the patch applied) goes through admission like a create, then the update strategy of its resource
// decides what may change:
//
//   every resource  metadata.name is the URL's; uid, creationTimestamp, deletion fields and the
//                   status are the stored ones (the status has its own subresource); a
//                   resourceVersion in the body must be the stored one (409 Conflict otherwise)
//   pods            metadata, and of the spec what ValidatePodUpdate lets change (the
//                   images, activeDeadlineSeconds, ...: PodSpecUpdateErrors); any other change
//                   is the apiserver's Forbidden ("pod updates may not change fields other
//                   than ..."); the node takes a changed image or deadline of a running pod
//   configmaps, secrets  nothing of data, binaryData or type once immutable is set
//   nodes           labels, annotations, taints, unschedulable; providerID and podCIDR(s) once
//   status          (pods/status, nodes/status, namespaces/status) only the status changes;
//                   no admission plugin runs, the body is decoded strictly as its kind
//   ephemeralcontainers  (pods) only spec.ephemeralContainers changes, by additions
//                   (ephemeral_containers.h); a pod's own update leaves them as stored
//
// An update that changes nothing is not written (the resourceVersion stays), as upstream.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "admission/pod_security.h"
#include "api/decode.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "apiserver/apply.h"
#include "apiserver/ephemeral_containers.h"
#include "apiserver/patch.h"
#include "apiserver/request_body.h"
#include "apiserver/rest_handler.h"
#include "apiserver/rest_response.h"
#include "discovery/served_resources.h"
#include "apiserver/workload_update.h"
#include "listwatch/stored_object.h"
#include "codec/json_codec.h"
#include "validation/node.h"
#include "validation/workloads.h"

namespace podlimits::apiserver {

using codec::Node;

namespace {

constexpr std::string_view kServerOwnedMeta[] = {
    "uid",          "creationTimestamp", "resourceVersion",
    "generation",   "deletionTimestamp", "deletionGracePeriodSeconds",
    "managedFields"};

constexpr std::string_view kPodUpdateForbidden =
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
    "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set "
    "to 1 if it was previously negative)";

std::string Json(const Node* n) {
  return n ? codec::EncodeJson(*n, 0) : std::string("null");
}

ApiError InvalidField(std::string_view kind, std::string_view name, field::Error error) {
  field::ErrorList errors;
  errors.push_back(std::move(error));
  ApiError e = Invalid(kind, name, errors);
  return e;
}

// validateContainerUpdates: the same number of containers, each image set without surrounding
// blanks. True when the comparison can go on (the munging below pairs containers by index).
bool ContainerUpdatesComparable(const Node* now, const Node* before, const field::Path& path,
                                field::ErrorList& errs) {
  const std::size_t count = now && now->IsArray() ? now->items.size() : 0;
  const std::size_t was = before && before->IsArray() ? before->items.size() : 0;
  if (count != was) {
    errs.push_back(field::Forbidden(path, "pod updates may not add or remove containers"));
    return false;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::string image = codec::StringOf(now->items[i].Find("image"));
    if (image.empty()) {
      errs.push_back(field::Required(path.Index(i).Child("image"), ""));
    } else if (image.find_first_not_of(" \t\n\v\f\r") != 0 ||
               image.find_last_not_of(" \t\n\v\f\r") != image.size() - 1) {
      errs.push_back(field::Invalid(path.Index(i).Child("image"), image,
                                    "must not have leading or trailing whitespace"));
    }
  }
  return true;
}

// spec.activeDeadlineSeconds may be set where it was not, or lowered; never raised or removed.
bool DeadlineUpdateAllowed(const Node* now, const Node* before, field::ErrorList& errs) {
  const field::Path path = field::Path("spec").Child("activeDeadlineSeconds");
  const auto number = [](const Node* n) -> std::optional<std::int64_t> {
    if (n == nullptr || n->IsNull()) return std::nullopt;
    return codec::IntOf(n);
  };
  const std::optional<std::int64_t> next = number(now), old = number(before);
  if (next) {
    if (*next < 0 || *next > std::numeric_limits<std::int32_t>::max()) {
      errs.push_back(field::Invalid(path, *next,
                                    fmt::format("must be between 0 and {}, inclusive",
                                                std::numeric_limits<std::int32_t>::max())));
      return false;
    }
    if (old && *old < *next) {
      errs.push_back(field::Invalid(path, *next, "must be less than or equal to previous value"));
      return false;
    }
  } else if (old) {
    errs.push_back(field::Invalid(path, std::string("null"),
                                  "must not update from a positive integer to nil value"));
  }
  return true;
}

// What a pod update may change of the spec (ValidatePodUpdate): the containers' and init
// containers' images, activeDeadlineSeconds (set, or lowered), terminationGracePeriodSeconds from
// a negative value to 1; scheduling gates may only be removed, tolerations only added; every
// other field is the stored one. The node takes the images and the deadline of a running pod
// (pod_spec_update.h).
field::ErrorList PodSpecUpdateErrors(const Node* next, const Node* stored) {
  field::ErrorList errs;
  const Node empty = Node::Object();
  const Node& now = next ? *next : empty;
  const Node& before = stored ? *stored : empty;
  for (const char* list : {"containers", "initContainers"}) {
    if (!ContainerUpdatesComparable(now.Find(list), before.Find(list),
                                    field::Path("spec").Child(list), errs)) {
      return errs;
    }
  }
  if (!DeadlineUpdateAllowed(now.Find("activeDeadlineSeconds"),
                             before.Find("activeDeadlineSeconds"), errs)) {
    return errs;
  }
  Node munged = now;
  for (const char* list : {"containers", "initContainers"}) {
    Node* containers = munged.Find(list);
    const Node* old = before.Find(list);
    if (containers == nullptr || old == nullptr || !containers->IsArray()) continue;
    for (std::size_t i = 0; i < containers->items.size(); ++i) {
      containers->items[i].Erase("image");
      if (const Node* image = old->items[i].Find("image")) containers->items[i].Set("image", *image);
    }
  }
  munged.Erase("activeDeadlineSeconds");
  if (const Node* v = before.Find("activeDeadlineSeconds")) munged.Set("activeDeadlineSeconds", *v);
  if (const Node* old_grace = before.Find("terminationGracePeriodSeconds");
      old_grace && codec::IntOf(old_grace).value_or(0) < 0 &&
      codec::IntOf(munged.Find("terminationGracePeriodSeconds")) == 1) {
    munged.Set("terminationGracePeriodSeconds", *old_grace);
  }
  const Node* old_gates = stored ? stored->Find("schedulingGates") : nullptr;
  if (const Node* gates = munged.Find("schedulingGates"); gates && gates->IsArray()) {
    for (std::size_t i = 0; i < gates->items.size(); ++i) {
      const std::string name = codec::StringOf(gates->items[i].Find("name"));
      bool known = false;
      if (old_gates && old_gates->IsArray()) {
        for (const Node& g : old_gates->items) known = known || codec::StringOf(g.Find("name")) == name;
      }
      if (!known) {
        errs.push_back(field::Forbidden(
            field::Path("spec").Child("schedulingGates").Index(i).Child("name"),
            fmt::format("only deletion is allowed, but found new scheduling gate '{}'", name)));
      }
    }
  }
  const Node* old_tolerations = stored ? stored->Find("tolerations") : nullptr;
  if (old_tolerations && old_tolerations->IsArray()) {
    const Node* now = munged.Find("tolerations");
    for (const Node& t : old_tolerations->items) {
      const bool kept = now && now->IsArray() &&
                        std::any_of(now->items.begin(), now->items.end(),
                                    [&](const Node& n) { return Json(&n) == Json(&t); });
      if (!kept) {
        errs.push_back(field::Forbidden(field::Path("spec").Child("tolerations"),
                                        "existing toleration can not be modified except its "
                                        "tolerationSeconds"));
        break;
      }
    }
  }
  if (!errs.empty()) return errs;
  for (const char* free : {"schedulingGates", "tolerations"}) {
    munged.Erase(free);
    if (const Node* v = stored ? stored->Find(free) : nullptr) munged.Set(free, *v);
  }
  if (codec::EncodeJsonSorted(munged) !=
      codec::EncodeJsonSorted(stored ? *stored : Node::Object())) {
    errs.push_back(field::Forbidden(field::Path("spec"), std::string(kPodUpdateForbidden)));
  }
  return errs;
}

}  // namespace

http::HttpResponse RestHandler::Update(const http::HttpRequest& request, const RequestInfo& info) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  const storage::ObjectKey key{info.resource, resource.namespaced ? info.namespace_ : "", info.name};
  const bool status_only = info.subresource == "status";
  const bool ephemeral_only = info.subresource == "ephemeralcontainers";
  auto type = request.headers.find("content-type");
  const std::string content_type = type == request.headers.end() ? "" : type->second;
  std::optional<PatchType> patch_type;
  const bool apply = info.verb == "patch" && IsApplyPatch(content_type);
  if (info.verb == "patch" && !apply) {
    patch_type = PatchTypeOf(content_type);
    if (!patch_type) {
      return UnsupportedMediaType({"application/json-patch+json", "application/merge-patch+json",
                                   "application/strategic-merge-patch+json",
                                   "application/apply-patch+yaml"})
          .Response();
    }
  }
  if (auto refused = CheckWriteOptions(request, info.verb, apply)) return refused->Response();
  // An apply's configuration (apply.h).
  std::optional<Node> config;
  if (apply) {
    auto read = ReadApplyConfiguration(request);
    if (!read) return read.error().Response();
    config = std::move(*read);
  }
  const fieldmanager::WriteScope scope = WriteScopeOf(resource, info.subresource, Now());
  // A PUT's object in JSON, YAML or protobuf (client-go's typed Update sends protobuf).
  std::string put_body;
  if (!patch_type && !apply) {
    auto decoded = ReadRequestBodyAsJson(request);
    if (!decoded) return decoded.error().Response();
    put_body = std::move(*decoded);
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto loaded = Load(key);
    if (auto* missing = std::get_if<http::HttpResponse>(&loaded)) {
      if (apply && !status_only && missing->status == 404 && info.resource != "nodes") {
        return ApplyCreate(request, info, *config);  // a node registers itself; never by apply
      }
      return std::move(*missing);
    }
    storage::StoredObject* got = &std::get<Loaded>(loaded).stored;
    Node* stored = &std::get<Loaded>(loaded).tree;

    Node candidate;
    // An apply's managedFields: what the object is stored with, instead of an Update entry.
    std::optional<Node> applied_managed;
    if (apply) {
      auto applied = fieldmanager::Apply(scope, stored, *config, WriteManager(request),
                                         ForceApply(request));
      if (!applied) {
        if (applied.error().Is("BadRequest")) return BadRequest(applied.error().Message()).Response();
        return InternalError(applied.error().Message()).Response();
      }
      if (!applied->conflicts.empty()) return ApplyConflict(applied->conflicts).Response();
      candidate = std::move(*applied->object);
      const Node* managed = candidate.FindPath({"metadata", "managedFields"});
      applied_managed = managed ? *managed : Node::Null();
    } else if (patch_type) {
      auto patched = ApplyPatch(*stored, *patch_type, request.body);
      if (!patched) return InvalidPatch(patched.error().Message()).Response();
      candidate = std::move(*patched);
    } else {
      auto parsed = ParseOneJsonObject(put_body);
      if (!parsed) {
        return BadRequest(
                   "the body of the request was in an unknown format - accepted media "
                   "types include: application/json, application/yaml")
            .Response();
      }
      candidate = std::move(*parsed);
    }
    if (!candidate.IsObject()) return BadRequest("the patched object is not an object").Response();
    // The request's own managedFields (a PUT's, or a JSON patch's of them: kubectl's migration
    // from client-side apply), before the server-owned metadata is taken off.
    std::optional<Node> requested_managed;
    if (const Node* m = candidate.FindPath({"metadata", "managedFields"}); m && !apply) {
      requested_managed = *m;
    }
    const std::string body_name = codec::StringOf(candidate.FindPath({"metadata", "name"}));
    if (body_name != info.name) {
      return BadRequest(fmt::format("the name of the object ({}) does not match the name on the "
                                    "URL ({})",
                                    body_name, info.name))
          .Response();
    }
    const std::string precondition = codec::StringOf(candidate.FindPath({"metadata", "resourceVersion"}));
    if (!precondition.empty() && precondition != std::to_string(got->revision)) {
      return Conflict(QualifiedResource(info.resource), info.name, ModifiedConflictReason()).Response();
    }
    Node next;
    std::vector<std::string> warnings;
    if (status_only) {
      // The status strategies: only the status changes (the spec and metadata are the
      // stored ones); no admission plugin looks at a status write. The body is still decoded
      // strictly as its kind.
      auto decoded = api::DecodeObject(api::Schema::Objects(), resource.kind, candidate, "request",
                                       0, FieldValidationOf(request));
      if (auto* err = std::get_if<api::DecodeError>(&decoded)) {
        return BadRequest(err->message).Response();
      }
      warnings = std::move(std::get<api::DecodedObject>(decoded).warnings);
      next = *stored;
      next.Erase("status");
      if (const Node* status = candidate.Find("status"); status && !status->IsNull()) {
        next.Set("status", *status);
      }
    } else if (ephemeral_only) {
      auto ns = store_.Get({"namespaces", "", info.namespace_});
      if (!ns) return InternalResponse(ns.error());
      auto ns_tree = ParseStoredObject(ns->data);
      if (!ns_tree) return CorruptStoredObject(*ns).Response();
      const admission::psa::PodSecurity default_security;
      auto updated = UpdateEphemeralContainers(
          candidate, *stored, api::ReadNamespace(*ns_tree),
          options_.pod_security ? *options_.pod_security : default_security, options_.gates,
          request);
      if (auto* refused = std::get_if<http::HttpResponse>(&updated)) return std::move(*refused);
      next = std::move(std::get<EphemeralContainersUpdate>(updated).next);
      warnings = std::move(std::get<EphemeralContainersUpdate>(updated).warnings);
    } else {
      // What the server owns is not the client's to set: admitted without it, restored after.
      Node& meta = candidate.Ensure("metadata");
      for (std::string_view field : kServerOwnedMeta) meta.Erase(field);
      candidate.Erase("status");
      // Ephemeral containers are the subresource's to add: the pod's own update is admitted
      // without them (its create validation refuses them) and must leave them as they are.
      std::optional<Node> ephemeral;
      if (info.resource == "pods") {
        if (Node* spec = candidate.Find("spec"); spec && spec->Find("ephemeralContainers")) {
          ephemeral = *spec->Find("ephemeralContainers");
          spec->Erase("ephemeralContainers");
        }
      }
      field::ErrorList update_errors;
      if (IsWorkloadResource(info.resource)) {
        update_errors = validation::ValidateWorkloadUpdate(resource.kind, candidate, *stored);
      }
      auto admitted = Admit(request, info, codec::EncodeJson(candidate, 0), update_errors);
      if (auto* refused = std::get_if<http::HttpResponse>(&admitted)) return std::move(*refused);
      Admitted& a = std::get<Admitted>(admitted);
      next = std::move(a.object);
      Node& next_meta = next.Ensure("metadata");
      const Node* stored_meta = stored->Find("metadata");
      for (std::string_view field : kServerOwnedMeta) {
        next_meta.Erase(field);
        if (const Node* v = stored_meta ? stored_meta->Find(field) : nullptr)
          next_meta.Set(field, *v);
      }
      next.Erase("status");
      if (const Node* status = stored->Find("status")) next.Set("status", *status);
      if (ephemeral && next.Find("spec")) next.Find("spec")->Set("ephemeralContainers", *ephemeral);

      if (info.resource == "pods") {
        if (field::ErrorList errs = PodSpecUpdateErrors(next.Find("spec"), stored->Find("spec"));
            !errs.empty()) {
          return Invalid(resource.kind, info.name, errs).Response();
        }
      }
      if (IsWorkloadResource(info.resource)) PrepareWorkloadUpdate(next, *stored);
      if (info.resource == "nodes") {
        validation::SyncNodePodCIDRs(next);
        if (field::ErrorList errs = validation::ValidateNodeUpdate(next, *stored); !errs.empty()) {
          return Invalid(resource.kind, info.name, errs).Response();
        }
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
      warnings = std::move(a.warnings);
    }
    if (applied_managed) {
      Node& next_meta = next.Ensure("metadata");
      if (applied_managed->IsNull()) {
        next_meta.Erase("managedFields");
      } else {
        next_meta.Set("managedFields", *applied_managed);
      }
    } else {
      TrackWrite(scope, stored, next, requested_managed ? &*requested_managed : nullptr, request);
    }
    if (auto invalid = CheckManagedFields(resource.kind, next)) return invalid->Response();
    api::CanonicalizeOrder(next, resource.kind);
    Node unchanged = *stored;
    api::CanonicalizeOrder(unchanged, resource.kind);
    if (codec::EncodeJson(next, 0) == codec::EncodeJson(unchanged, 0)) {
      http::HttpResponse r = JsonResponse(200, std::move(got->data));
      AddWarnings(r, warnings);
      return r;
    }
    auto written = store_.Update(key, got->revision, [&](std::int64_t rv) {
      return RenderStoredObject(next, resource.kind, rv);
    });
    if (!written) {
      // Written by someone else since the load (the node's status, a controller): load again and
      // redo the patch or apply, as GuaranteedUpdate does. A resourceVersion the request itself
      // pinned no longer matches then, and is answered 409 above; one that merely came along from
      // the stored object (every patch and apply carries it) matches again. Answering 409 here
      // refused a forced apply of a running pod whose status the node wrote meanwhile.
      if (written.error().Is(storage::kConflict)) continue;
      if (written.error().Is(storage::kNotFound)) {
        return NotFound(info.resource, info.name).Response();
      }
      return InternalResponse(written.error());
    }
    http::HttpResponse r = JsonResponse(200, std::move(written->data));
    AddWarnings(r, warnings);
    return r;
  }
  return Conflict(QualifiedResource(info.resource), info.name, ModifiedConflictReason()).Response();
}

http::HttpResponse RestHandler::ApplyCreate(const http::HttpRequest& request,
                                           const RequestInfo& info, const Node& config) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  const fieldmanager::WriteScope scope = WriteScopeOf(resource, "", Now());
  auto applied = fieldmanager::Apply(scope, nullptr, config, WriteManager(request), ForceApply(request));
  if (!applied) {
    if (applied.error().Is("BadRequest")) return BadRequest(applied.error().Message()).Response();
    return InternalError(applied.error().Message()).Response();
  }
  Node object = std::move(*applied->object);
  const Node* managed = object.FindPath({"metadata", "managedFields"});
  const Node managed_fields = managed ? *managed : Node::Null();
  object.Find("metadata")->Erase("managedFields");
  // The merged object is created as a POST of it would be (admission, uid, the store), with
  // the apply's managedFields. The apiserver answers an apply that creates with 201.
  http::HttpRequest create = request;
  create.method = "POST";
  create.headers["content-type"] = "application/json";
  create.query.erase("force");
  create.body = codec::EncodeJson(object, 0);
  RequestInfo create_info = info;
  create_info.verb = "create";
  return Create(create, create_info, &managed_fields);
}

}  // namespace podlimits::apiserver
