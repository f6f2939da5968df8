// The node agent's Node object (node_agent.h "node status"): registered at start and posted
// again every node_status_period, as the kubelet's node status loop does, with the PIDPressure
// setter's events.
#include "nodeagent/node_agent.h"

#include <fmt/format.h>

#include "listwatch/stored_object.h"
#include "base/clock_text.h"
#include "base/uuid.h"
#include "kubelet/plan/pod_plan.h"
#include "nodeagent/managed_writes.h"
#include "nodeagent/object_fields.h"

namespace podlimits::nodeagent {

using codec::Node;
using storage::ObjectKey;

// Creates or updates an object the node keeps itself (its Node, its Lease). `make` gets the
// stored object (nullopt when there is none yet) and returns what to write, or nullopt to write
// nothing; a write that lost a race with another writer is made again from the new object.
void NodeAgent::WriteOwnObject(const ObjectKey& key, std::string_view kind, std::string_view what,
                               std::string_view manager, std::string_view subresource,
                               const std::function<std::optional<Node>(std::optional<Node>)>& make) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto got = store_.Get(key);
    if (!got && !got.error().Is(storage::kNotFound)) {
      Log(fmt::format("{}: {}", what, got.error().Message()));
      return;
    }
    std::optional<Node> stored;
    if (got) {
      stored = apiserver::ParseStoredObject(got->data);
      if (!stored) {
        Log(fmt::format("{}: the stored {} does not parse", what, kind));
        return;
      }
    }
    const std::optional<Node> live = stored;
    std::optional<Node> object = make(std::move(stored));
    if (!object) return;
    // A create (the Node registered, the Lease first taken) is to the object itself.
    RecordManagedWrite(key.resource, live ? subresource : "", manager, live ? &*live : nullptr, *object);
    auto render = [&](std::int64_t rv) { return apiserver::RenderStoredObject(*object, kind, rv); };
    auto written = got ? store_.Update(key, got->revision, render) : store_.Create(key, render);
    if (written) return;
    const Error& failed = written.error();
    if (!failed.Is(storage::kConflict) && !failed.Is(storage::kAlreadyExists)) {
      Log(fmt::format("{}: {}", what, written.error().Message()));
      return;
    }
  }
}

// The node registers itself, then posts its status: its labels and annotations are merged into
// what others set (the spec, say taints and unschedulable, is kept), the status replaced.
void NodeAgent::SyncNode() {
  if (!options_.node_status) return;
  std::string pid_before, pid_after;
  WriteOwnObject({"nodes", "", options_.node_name}, "Node", "node status", kKubeletManager, "status",
                 [&](std::optional<Node> stored) -> std::optional<Node> {
                   Node fresh = options_.node_status(stored ? &*stored : nullptr, pid_pressure_);
                   pid_before = stored ? PidPressureStatus(*stored) : "";
                   pid_after = PidPressureStatus(fresh);
                   if (!stored) {
                     fresh.Ensure("metadata").Set("uid", Node::String(NewUuid()));
                     fresh.Ensure("metadata").Set("creationTimestamp",
                                                  Node::String(Rfc3339Now()));
                     return fresh;
                   }
                   Node& meta = stored->Ensure("metadata");
                   for (const char* field : {"labels", "annotations"}) {
                     const Node* ours = fresh.FindPath({"metadata", field});
                     if (ours == nullptr || !ours->IsObject()) continue;
                     Node& kept = meta.Ensure(field);
                     for (const auto& m : ours->members) kept.Set(m.key, m.value);
                   }
                   stored->Set("status", *fresh.Find("status"));
                   return stored;
                 });
  // The PIDPressure setter's event when the condition is new or its status flips.
  if (pid_after != pid_before && !pid_after.empty()) {
    const char* event = pid_after == "True" ? "NodeHasInsufficientPID" : "NodeHasSufficientPID";
    PostNodeEvent("Normal", event,
                  fmt::format("Node {} status is now: {}", options_.node_name, event));
  }
}

}  // namespace podlimits::nodeagent
