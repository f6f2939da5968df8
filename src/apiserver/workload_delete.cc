#include "apiserver/workload_delete.h"

#include "codec/node.h"
#include "listwatch/stored_object.h"

namespace podlimits::apiserver {

using codec::Node;

Result<void> OrphanDependents(storage::ObjectStore& store, std::string_view resource,
                              std::string_view namespace_, std::string_view owner_uid) {
  const char* dependents = resource == "deployments" ? "replicasets"
                           : resource == "cronjobs"  ? "jobs"
                                                     : "pods";
  const char* kind = resource == "deployments" ? "ReplicaSet" : resource == "cronjobs" ? "Job" : "Pod";
  auto listed = store.List(dependents, std::string(namespace_), false);
  if (!listed) return std::unexpected(listed.error());
  for (const auto& item : listed->items) {
    auto tree = ParseStoredObject(item.data);
    if (!tree) continue;
    Node* refs = tree->FindPath({"metadata", "ownerReferences"});
    if (refs == nullptr || !refs->IsArray()) continue;
    const std::size_t before = refs->items.size();
    std::erase_if(refs->items, [&](const Node& r) { return codec::StringOf(r.Find("uid")) == owner_uid; });
    if (refs->items.size() == before) continue;
    if (refs->items.empty()) tree->Ensure("metadata").Erase("ownerReferences");
    // A conflict (the node wrote the pod's status meanwhile) is retried once with the new copy.
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto current = attempt == 0 ? Result<storage::StoredObject>(item) : store.Get(item.key);
      if (!current) break;
      if (attempt > 0) {
        auto fresh = ParseStoredObject(current->data);
        if (!fresh) break;
        Node* r = fresh->FindPath({"metadata", "ownerReferences"});
        if (r && r->IsArray()) {
          std::erase_if(r->items, [&](const Node& n) { return codec::StringOf(n.Find("uid")) == owner_uid; });
          if (r->items.empty()) fresh->Ensure("metadata").Erase("ownerReferences");
        }
        *tree = std::move(*fresh);
      }
      auto written = store.Update(item.key, current->revision, [&](std::int64_t rv) {
        return RenderStoredObject(*tree, kind, rv);
      });
      if (written || !written.error().Is(storage::kConflict)) break;
    }
  }
  return {};
}

}  // namespace podlimits::apiserver
