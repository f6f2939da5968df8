// DELETE: preconditions, the namespace lifecycle, a pod's graceful deletion, orphaning a
// workload's dependents, and the Status the apiserver answers.
#include "apiserver/rest_handler.h"

#include <fmt/format.h>

#include "apiserver/pod_deletion.h"
#include "apiserver/request_body.h"
#include "apiserver/rest_response.h"
#include "discovery/served_resources.h"
#include "apiserver/workload_delete.h"
#include "codec/json_codec.h"
#include "listwatch/api_errors.h"
#include "listwatch/stored_object.h"

namespace podlimits::apiserver {

using codec::Node;

http::HttpResponse RestHandler::Delete(const http::HttpRequest& request, const RequestInfo& info) {
  std::optional<std::string> grace_query;
  if (auto it = request.query.find("gracePeriodSeconds"); it != request.query.end()) {
    grace_query = it->second;
  }
  // client-go's typed clients send DeleteOptions in protobuf, kubectl in JSON.
  std::string body;
  if (request.body.find_first_not_of(" \t\r\n") != std::string::npos) {
    auto decoded = ReadRequestBodyAsJson(request);
    if (!decoded) return decoded.error().Response();
    body = std::move(*decoded);
  }
  auto options = ParseDeleteOptions(body, grace_query);
  if (!options) return BadRequest(options.error().Message()).Response();
  if (auto it = request.query.find("propagationPolicy");
      it != request.query.end() && options->propagation_policy.empty()) {
    options->propagation_policy = it->second;
  }
  return DeleteObject(info, *options);
}

http::HttpResponse RestHandler::DeleteObject(const RequestInfo& info, const DeleteOptions& options) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  const storage::ObjectKey key{info.resource, resource.namespaced ? info.namespace_ : "", info.name};
  std::optional<storage::DryRunScope> dry_run;
  if (options.dry_run) dry_run.emplace();
  // Retried when the object changes between the read and the write (the node publishing a
  // pod's status meanwhile), as the apiserver's GuaranteedUpdate retries.
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto loaded = Load(key);
    if (auto* missing = std::get_if<http::HttpResponse>(&loaded)) return std::move(*missing);
    storage::StoredObject* got = &std::get<Loaded>(loaded).stored;
    Node* tree = &std::get<Loaded>(loaded).tree;
    std::string uid;
    if (const Node* u = tree->FindPath({"metadata", "uid"})) uid = u->scalar;
    if (!options.precondition_uid.empty() && options.precondition_uid != uid) {
      return Conflict(QualifiedResource(info.resource), info.name,
                      fmt::format("Precondition failed: UID in precondition: {}, UID in object "
                                  "meta: {}",
                                  options.precondition_uid, uid))
          .Response();
    }
    if (!options.precondition_resource_version.empty() &&
        options.precondition_resource_version != std::to_string(got->revision)) {
      return Conflict(QualifiedResource(info.resource), info.name,
                      fmt::format("Precondition failed: ResourceVersion in precondition: {}, "
                                  "ResourceVersion in object meta: {}",
                                  options.precondition_resource_version, got->revision))
          .Response();
    }
    if (info.resource == "namespaces") {
      // NamespaceLifecycle's immortal namespaces; the others go through the namespace
      // controller: Terminating until their content is gone and the finalizer removed.
      for (std::string_view immortal : {"default", "kube-system", "kube-public"}) {
        if (info.name == immortal) {
          return Forbidden("namespaces", info.name, "this namespace may not be deleted").Response();
        }
      }
      const Node* finalizers = tree->FindPath({"spec", "finalizers"});
      if (finalizers && finalizers->IsArray() && !finalizers->items.empty()) {
        if (tree->FindPath({"metadata", "deletionTimestamp"})) {
          return JsonResponse(200, std::move(got->data));
        }
        tree->Ensure("metadata").Set("deletionTimestamp", Node::String(Now()));
        tree->Ensure("status").Set("phase", Node::String("Terminating"));
        auto updated = store_.Update(key, got->revision, [&](std::int64_t rv) {
          return RenderStoredObject(*tree, "Namespace", rv);
        });
        if (!updated) {
          if (updated.error().Is(storage::kConflict)) continue;
          return InternalResponse(updated.error());
        }
        return JsonResponse(200, std::move(updated->data));
      }
    }
    if (info.resource == "pods") {
      auto deletion = DecidePodDeletion(*tree, options);
      if (!deletion) return JsonResponse(200, std::move(got->data));  // already going sooner
      if (!deletion->immediate) {
        MarkPodDeleting(*tree, deletion->grace_seconds, clock_());
        auto updated = store_.Update(key, got->revision, [&](std::int64_t rv) {
          return RenderStoredObject(*tree, "Pod", rv);
        });
        if (!updated) {
          if (updated.error().Is(storage::kConflict)) continue;
          if (updated.error().Is(storage::kNotFound)) {
            return NotFound(info.resource, info.name, info.group).Response();
          }
          return InternalResponse(updated.error());
        }
        // The object, being deleted: what the apiserver answers a graceful delete.
        return JsonResponse(200, std::move(updated->data));
      }
    }
    if (IsWorkloadResource(info.resource) && options.propagation_policy == "Orphan" &&
        !options.dry_run) {
      if (auto orphaned = OrphanDependents(store_, info.resource, key.namespace_, uid); !orphaned) {
        return InternalResponse(orphaned.error());
      }
    }
    auto deleted = store_.Delete(key, got->revision, [&](std::int64_t rv) {
      return RenderStoredObject(*tree, resource.kind, rv);
    });
    if (!deleted) {
      if (deleted.error().Is(storage::kConflict)) continue;
      if (deleted.error().Is(storage::kNotFound)) {
        return NotFound(info.resource, info.name, info.group).Response();
      }
      return InternalResponse(deleted.error());
    }
    if (info.resource == "pods") return JsonResponse(200, std::move(deleted->data));
    // What the apiserver answers for other resources deleted at once: a Status of Success.
    Node status = Node::Object();
    status.Set("kind", Node::String("Status"));
    status.Set("apiVersion", Node::String("v1"));
    status.Set("metadata", Node::Object());
    status.Set("status", Node::String("Success"));
    Node details = Node::Object();
    details.Set("name", Node::String(info.name));
    if (!resource.group.empty()) details.Set("group", Node::String(std::string(resource.group)));
    details.Set("kind", Node::String(info.resource));
    details.Set("uid", Node::String(uid));
    status.Set("details", std::move(details));
    return JsonResponse(200, codec::EncodeJson(status, 0));
  }
  return Conflict(QualifiedResource(info.resource), info.name, ModifiedConflictReason()).Response();
}

}  // namespace podlimits::apiserver
