#include "controllers/garbage_collector.h"

#include <set>

#include "controllers/owned_objects.h"

namespace podlimits::controllers {

using codec::Node;

void GarbageCollector::SyncAll() {
  std::set<std::string> owners;
  for (const char* resource : {"deployments", "replicasets", "jobs", "cronjobs"}) {
    for (const Object& o : api_.List(resource)) {
      owners.insert(codec::StringOf(o.tree.FindPath({"metadata", "uid"})));
    }
  }
  // Whether every owner the collector knows the kind of is gone (and there is at least one).
  auto abandoned = [&](const Node& object) {
    const Node* refs = object.FindPath({"metadata", "ownerReferences"});
    if (refs == nullptr || !refs->IsArray() || refs->items.empty()) return false;
    for (const Node& r : refs->items) {
      const std::string kind = codec::StringOf(r.Find("kind"));
      if (kind != "Deployment" && kind != "ReplicaSet" && kind != "Job" && kind != "CronJob") {
        return false;
      }
      if (owners.contains(codec::StringOf(r.Find("uid")))) return false;
    }
    return true;
  };
  for (const char* resource : {"jobs", "replicasets", "pods"}) {
    for (const Object& o : api_.List(resource)) {
      if (o.tree.FindPath({"metadata", "deletionTimestamp"}) || !abandoned(o.tree)) continue;
      (void)api_.Delete(resource, codec::StringOf(o.tree.FindPath({"metadata", "namespace"})),
                        codec::StringOf(o.tree.FindPath({"metadata", "name"})));
    }
  }
}

}  // namespace podlimits::controllers
