// The one-node scheduler of the node agent (node_agent.h "bind"): a new pod is bound to this
// node, or left Pending with the reason (scheduling gates, pod_fit.h's filters) and the
// scheduler's events; when the Node changes, its taints follow spec.unschedulable and
// PIDPressure (the node lifecycle controller's job) and the pods left Pending are tried again.
#include "nodeagent/node_agent.h"

#include <fmt/format.h>

#include "listwatch/stored_object.h"
#include "base/clock_text.h"
#include "nodeagent/object_fields.h"
#include "nodeagent/managed_writes.h"
#include "nodeagent/pod_fit.h"

namespace podlimits::nodeagent {

using codec::Node;
using storage::ObjectKey;
using storage::StoredObject;

namespace {

// The taints the node lifecycle controller keeps on a cordoned node and, by condition
// (TaintNodesByCondition), on a node under PIDPressure.
constexpr std::string_view kUnschedulableTaintKey = "node.kubernetes.io/unschedulable";
constexpr std::string_view kPidPressureTaintKey = "node.kubernetes.io/pid-pressure";

bool IsCordonTaint(const Node& taint) {
  return Str(taint, {"key"}) == kUnschedulableTaintKey && Str(taint, {"effect"}) == "NoSchedule";
}

bool IsPidPressureTaint(const Node& taint) {
  return Str(taint, {"key"}) == kPidPressureTaintKey && Str(taint, {"effect"}) == "NoSchedule";
}

bool HasTaint(const Node& node, bool (*match)(const Node&)) {
  const Node* taints = node.FindPath({"spec", "taints"});
  return taints && taints->IsArray() && std::any_of(taints->items.begin(), taints->items.end(), match);
}

Node ScheduledCondition() {
  Node c = Node::Object();
  c.Set("type", Node::String("PodScheduled"));
  c.Set("status", Node::String("True"));
  c.Set("lastProbeTime", Node::Null());
  c.Set("lastTransitionTime", Node::String(Rfc3339Now()));
  return c;
}

}  // namespace

void NodeAgent::Bind(const StoredObject& object, Node pod) {
  // A pod with scheduling gates is not looked at until they are all removed (an update of the
  // pod, which brings it here again).
  if (const Node* gates = pod.FindPath({"spec", "schedulingGates"});
      gates && gates->IsArray() && !gates->items.empty()) {
    MarkPending(object, std::move(pod), "SchedulingGated",
                "Scheduling is blocked due to non-empty scheduling gates");
    return;
  }
  // The scheduler's filters, against the Node as it is now (none registered: nothing to
  // filter on, as in tests that run the agent alone).
  if (auto node = store_.Get({"nodes", "", options_.node_name})) {
    if (auto tree = apiserver::ParseStoredObject(node->data)) {
      if (auto reason = UnfitReason(pod, *tree, ActivePodCount())) {
        unschedulable_.insert(object.key);
        MarkPending(object, std::move(pod), "Unschedulable", FitErrorMessage(*reason));
        return;
      }
    }
  }
  unschedulable_.erase(object.key);
  pod.Ensure("spec").Set("nodeName", Node::String(options_.node_name));
  Node& status = pod.Ensure("status");
  Node& conditions = status.Ensure("conditions", Node::Kind::kArray);
  std::erase_if(conditions.items,
                [](const Node& c) { return Str(c, {"type"}) == "PodScheduled"; });
  conditions.items.push_back(ScheduledCondition());
  auto updated = store_.Update(object.key, object.revision, [&](std::int64_t rv) {
    return apiserver::RenderStoredObject(pod, "Pod", rv);
  });
  if (!updated) {
    if (!updated.error().Is(storage::kConflict) &&
        !updated.error().Is(storage::kNotFound)) {
      Log("bind pod " + object.key.name + ": " + updated.error().Message());
    }
    return;
  }
  // Counted as the node's from now on (the scheduler's assumed pod), before the watch brings it.
  pods_[Str(pod, {"metadata", "uid"})].key = object.key;
  PostSchedulerEvent(object.key, Str(pod, {"metadata", "uid"}), "Normal", "Scheduled",
                     fmt::format("Successfully assigned {}/{} to {}", object.key.namespace_,
                                 object.key.name, options_.node_name));
}

void NodeAgent::MarkPending(const StoredObject& object, Node pod, std::string_view reason,
                            const std::string& message) {
  Node& conditions = pod.Ensure("status").Ensure("conditions", Node::Kind::kArray);
  for (const Node& c : conditions.items) {
    if (Str(c, {"type"}) == "PodScheduled" && Str(c, {"status"}) == "False" &&
        Str(c, {"reason"}) == reason && Str(c, {"message"}) == message) {
      return;  // already said so
    }
  }
  std::erase_if(conditions.items,
                [](const Node& c) { return Str(c, {"type"}) == "PodScheduled"; });
  Node c = ScheduledCondition();
  c.Set("status", Node::String("False"));
  c.Set("reason", Node::String(std::string(reason)));
  c.Set("message", Node::String(message));
  conditions.items.push_back(std::move(c));
  Node& status = *pod.Find("status");
  if (status.Find("phase") == nullptr) status.Set("phase", Node::String("Pending"));
  // The scheduler's status patch (the binding of a pod it places records nothing).
  if (auto live = apiserver::ParseStoredObject(object.data)) {
    RecordManagedWrite("pods", "status", kSchedulerManager, &*live, pod);
  }
  auto updated = store_.Update(object.key, object.revision, [&](std::int64_t rv) {
    return apiserver::RenderStoredObject(pod, "Pod", rv);
  });
  if (!updated) return;  // changed meanwhile: that change brings the pod here again
  // A gated pod was never tried: only a failed attempt is an event.
  if (reason == "Unschedulable") {
    PostSchedulerEvent(object.key, Str(pod, {"metadata", "uid"}), "Warning", "FailedScheduling",
                       message);
  }
}

void NodeAgent::PostSchedulerEvent(const ObjectKey& pod, const std::string& uid,
                                   std::string_view type, std::string_view reason,
                                   const std::string& message) {
  PostPodEvent(pod, uid, "default-scheduler", type, reason, message);
}

void NodeAgent::NodeChanged() {
  auto got = store_.Get({"nodes", "", options_.node_name});
  if (!got || got->revision == node_revision_) return;
  node_revision_ = got->revision;
  auto node = apiserver::ParseStoredObject(got->data);
  if (!node) return;
  const Node* u = node->FindPath({"spec", "unschedulable"});
  const bool cordoned = u != nullptr && u->AsBool();
  const bool pressure = PidPressureStatus(*node) == "True";
  if (cordoned != HasTaint(*node, IsCordonTaint) ||
      pressure != HasTaint(*node, IsPidPressureTaint)) {
    // The node lifecycle controller's taints, of kube-controller-manager.
    WriteOwnObject({"nodes", "", options_.node_name}, "Node", "node taints", kControllerManager, "",
                   [&](std::optional<Node> stored) -> std::optional<Node> {
                     if (!stored) return std::nullopt;
                     const bool pid_pressure = PidPressureStatus(*stored) == "True";
                     Node& spec = stored->Ensure("spec");
                     const Node* now = spec.Find("unschedulable");
                     const bool want = now != nullptr && now->AsBool();
                     Node& taints = spec.Ensure("taints", Node::Kind::kArray);
                     std::erase_if(taints.items, IsCordonTaint);
                     std::erase_if(taints.items, IsPidPressureTaint);
                     auto add = [&taints](std::string_view key) {
                       Node taint = Node::Object();
                       taint.Set("key", Node::String(std::string(key)));
                       taint.Set("effect", Node::String("NoSchedule"));
                       taints.items.push_back(std::move(taint));
                     };
                     if (want) add(kUnschedulableTaintKey);
                     if (pid_pressure) add(kPidPressureTaintKey);
                     if (taints.items.empty()) spec.Erase("taints");
                     return stored;
                   });
  }
  const std::set<ObjectKey> pending = std::move(unschedulable_);
  unschedulable_.clear();
  for (const ObjectKey& key : pending) {
    if (auto pod = store_.Get(key)) Sync(*pod);
  }
}

}  // namespace podlimits::nodeagent
