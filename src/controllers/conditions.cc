#include "controllers/conditions.h"

namespace podlimits::controllers {

using codec::Node;

const Node* FindCondition(const Node& status, std::string_view type) {
  const Node* conditions = status.Find("conditions");
  if (conditions == nullptr || !conditions->IsArray()) return nullptr;
  for (const Node& c : conditions->items) {
    if (codec::StringOf(c.Find("type")) == type) return &c;
  }
  return nullptr;
}

bool ConditionTrue(const Node& status, std::string_view type) {
  const Node* c = FindCondition(status, type);
  return c && codec::StringOf(c->Find("status")) == "True";
}

void RemoveCondition(Node& status, std::string_view type) {
  Node* conditions = status.Find("conditions");
  if (conditions == nullptr || !conditions->IsArray()) return;
  std::erase_if(conditions->items,
                [&](const Node& c) { return codec::StringOf(c.Find("type")) == type; });
  if (conditions->items.empty()) status.Erase("conditions");
}

void SetCondition(Node& status, const Condition& c, std::string_view now, bool job) {
  std::string transition(now);
  if (const Node* current = FindCondition(status, c.type)) {
    if (codec::StringOf(current->Find("status")) == c.status &&
        codec::StringOf(current->Find("reason")) == c.reason) {
      return;
    }
    if (codec::StringOf(current->Find("status")) == c.status) {
      transition = codec::StringOf(current->Find("lastTransitionTime"));
    }
  }
  RemoveCondition(status, c.type);
  Node n = Node::Object();
  n.Set("type", Node::String(c.type));
  n.Set("status", Node::String(c.status));
  n.Set(job ? "lastProbeTime" : "lastUpdateTime", Node::String(std::string(now)));
  n.Set("lastTransitionTime", Node::String(transition));
  n.Set("reason", Node::String(c.reason));
  n.Set("message", Node::String(c.message));
  status.Ensure("conditions", Node::Kind::kArray).items.push_back(std::move(n));
}

}  // namespace podlimits::controllers
