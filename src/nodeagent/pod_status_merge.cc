#include "nodeagent/pod_status_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace podlimits::nodeagent {

using codec::Node;

namespace {

constexpr std::string_view kKubeletConditions[] = {"PodReadyToStartContainers", "Initialized",
                                                   "Ready", "ContainersReady", "PodScheduled"};

bool KubeletOwned(std::string_view type) {
  return std::find(std::begin(kKubeletConditions), std::end(kKubeletConditions), type) !=
         std::end(kKubeletConditions);
}

const Node* FindCondition(const Node* conditions, std::string_view type) {
  if (conditions == nullptr || !conditions->IsArray()) return nullptr;
  for (const Node& c : conditions->items) {
    if (codec::StringOf(c.Find("type")) == type) return &c;
  }
  return nullptr;
}

// Why the readiness gates hold Ready back ("" when they do not), in the kubelet's words.
std::string UnreadyGates(const Node& pod, const Node* conditions) {
  const Node* gates = pod.FindPath({"spec", "readinessGates"});
  if (gates == nullptr || !gates->IsArray()) return "";
  std::vector<std::string> messages;
  for (const Node& gate : gates->items) {
    const std::string type = codec::StringOf(gate.Find("conditionType"));
    const Node* c = FindCondition(conditions, type);
    if (c == nullptr) {
      messages.push_back(
          fmt::format("corresponding condition of pod readiness gate \"{}\" does not exist.", type));
    } else if (codec::StringOf(c->Find("status")) != "True") {
      messages.push_back(fmt::format(
          "the status of pod readiness gate \"{}\" is not \"True\", but {}", type,
          codec::StringOf(c->Find("status"))));
    }
  }
  std::string out;
  for (const auto& m : messages) out += (out.empty() ? "" : ", ") + m;
  return out;
}

}  // namespace

void MergePodStatus(Node& next, const Node& pod, const std::string& now) {
  const Node* stored = pod.FindPath({"status", "conditions"});
  Node& conditions = next.Ensure("conditions", Node::Kind::kArray);
  // Others' conditions first, then the kubelet's (generateAPIPodStatus' order).
  Node merged = Node::Array();
  if (stored != nullptr && stored->IsArray()) {
    for (const Node& c : stored->items) {
      if (!KubeletOwned(codec::StringOf(c.Find("type")))) merged.items.push_back(c);
    }
  }
  for (Node& c : conditions.items) {
    const std::string type = codec::StringOf(c.Find("type"));
    if (type == "PodScheduled") {
      // True as the kubelet writes it, with the binding's time when there was one.
      if (const Node* bound = FindCondition(stored, "PodScheduled");
          bound && codec::StringOf(bound->Find("status")) == "True") {
        c = *bound;
      }
    }
    if (KubeletOwned(type)) merged.items.push_back(std::move(c));
  }
  if (merged.items.empty()) {
    next.Erase("conditions");  // a rejected pod's status has none
    return;
  }
  conditions = std::move(merged);
  for (Node& ready : conditions.items) {
    if (codec::StringOf(ready.Find("type")) != "Ready" || codec::StringOf(ready.Find("status")) != "True") continue;
    const std::string unready = UnreadyGates(pod, &conditions);
    if (unready.empty()) break;
    Node held = Node::Object();
    held.Set("type", Node::String("Ready"));
    held.Set("status", Node::String("False"));
    held.Set("lastProbeTime", Node::Null());
    const Node* before = FindCondition(stored, "Ready");
    held.Set("lastTransitionTime", before && codec::StringOf(before->Find("status")) == "False"
                                       ? *before->Find("lastTransitionTime")
                                       : Node::String(now));
    held.Set("reason", Node::String("ReadinessGatesNotReady"));
    held.Set("message", Node::String(unready));
    ready = std::move(held);
    break;
  }
}

}  // namespace podlimits::nodeagent
