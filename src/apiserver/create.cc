// POST: a new object through admission, with its uid, creation time and managedFields.
#include "apiserver/rest_handler.h"

#include "apiserver/apply.h"
#include "apiserver/request_body.h"
#include "apiserver/rest_response.h"
#include "discovery/served_resources.h"
#include "base/uuid.h"
#include "listwatch/api_errors.h"
#include "listwatch/stored_object.h"

namespace podlimits::apiserver {

using codec::Node;

http::HttpResponse RestHandler::Create(const http::HttpRequest& request, const RequestInfo& info,
                                      const Node* applied_managed_fields) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  if (auto refused = CheckWriteOptions(request, "create", false)) return refused->Response();
  // kubectl's generators (create namespace|configmap|secret, run) and client-go's typed
  // clients send protobuf.
  auto body = ReadRequestBody(request);
  if (!body) return body.error().Response();
  auto admitted = Admit(request, info, body->text);
  if (auto* refused = std::get_if<http::HttpResponse>(&admitted)) return std::move(*refused);
  Admitted& a = std::get<Admitted>(admitted);
  Node tree = std::move(a.object);
  Node& meta = tree.Ensure("metadata");
  const std::string name = meta.Find("name") ? meta.Find("name")->scalar : "";
  // A Job's uid is set by admission, which generated its selector from it.
  if (!(resource.kind == "Job" && meta.Find("uid"))) meta.Set("uid", Node::String(NewUuid()));
  meta.Set("creationTimestamp", Node::String(Now()));
  if (applied_managed_fields != nullptr) {
    if (applied_managed_fields->IsNull()) {
      meta.Erase("managedFields");
    } else {
      meta.Set("managedFields", *applied_managed_fields);
    }
  } else {
    const Node* requested = tree.FindPath({"metadata", "managedFields"});
    const std::optional<Node> requested_copy =
        requested ? std::optional<Node>(*requested) : std::nullopt;
    TrackWrite(WriteScopeOf(resource, "", Now()), nullptr, tree,
               requested_copy ? &*requested_copy : nullptr, request);
  }
  if (auto invalid = CheckManagedFields(resource.kind, tree)) return invalid->Response();
  const std::string kind(resource.kind);
  auto stored = store_.Create(
      {info.resource, resource.namespaced ? info.namespace_ : "", name},
      [&](std::int64_t rv) { return RenderStoredObject(tree, kind, rv); });
  if (!stored) {
    if (stored.error().Is(storage::kAlreadyExists)) {
      return AlreadyExists(QualifiedResource(info.resource), name).Response();
    }
    return InternalResponse(stored.error());
  }
  http::HttpResponse r = JsonResponse(201, std::move(stored->data));
  AddWarnings(r, a.warnings);
  return r;
}

}  // namespace podlimits::apiserver
