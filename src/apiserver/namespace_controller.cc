#include "apiserver/namespace_controller.h"

#include "discovery/served_resources.h"
#include "listwatch/stored_object.h"

namespace podlimits::apiserver {

using codec::Node;

void NamespaceController::Start() {
  thread_ = std::thread([this] {
    std::int64_t seen = 0;
    while (!stopping_) {
      SyncOnce();
      seen = store_.WaitForChange(seen, std::chrono::milliseconds(1000));
    }
  });
}

void NamespaceController::Stop() {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
}

void NamespaceController::SyncOnce() {
  auto namespaces = store_.List("namespaces", "", true);
  if (!namespaces) return;
  for (const auto& ns : namespaces->items) {
    auto tree = ParseStoredObject(ns.data);
    if (!tree || !tree->FindPath({"metadata", "deletionTimestamp"})) continue;
    bool remaining = false;
    for (const ServedResource& resource : ServedResources()) {
      if (!resource.namespaced || !Stored(resource)) continue;
      const std::string name(resource.name);
      auto items = store_.List(name, ns.key.name, false);
      if (!items) {
        remaining = true;
        continue;
      }
      for (const auto& item : items->items) {
        remaining = true;
        auto object = ParseStoredObject(item.data);
        // A pod already going keeps its own grace period.
        if (object && object->FindPath({"metadata", "deletionTimestamp"})) continue;
        http::HttpRequest del;
        del.method = "DELETE";
        del.path = "/api/v1/namespaces/" + ns.key.name + "/" + name + "/" + item.key.name;
        del.user = "system:serviceaccount:kube-system:namespace-controller";
        (void)rest_.Handle(del);
      }
    }
    if (!remaining) Finalize(ns);
  }
}

// The namespace is empty: its finalizer goes, and with no finalizer left, the object.
void NamespaceController::Finalize(const storage::StoredObject& ns) {
  auto tree = ParseStoredObject(ns.data);
  if (!tree) return;
  (void)store_.Delete(ns.key, ns.revision, [&](std::int64_t rv) {
    tree->Ensure("spec").Set("finalizers", Node::Array());
    return RenderStoredObject(*tree, "Namespace", rv);
  });
}

}  // namespace podlimits::apiserver
