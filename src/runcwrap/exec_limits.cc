#include "runcwrap/exec_limits.h"

#include <algorithm>

namespace podlimits::runcwrap {

using codec::Node;

Result<bool> CopyContainerRlimits(const Node& container_spec, Node& process) {
  const Node* wanted = container_spec.FindPath({"process", "rlimits"});
  if (wanted == nullptr || wanted->IsNull()) return false;
  if (!wanted->IsArray()) return Failure("config.json: process.rlimits is not a list");
  if (!process.IsObject()) return Failure("process.json: not an object");
  Node& list = process.Ensure("rlimits", Node::Kind::kArray);
  if (list.IsNull()) list = Node::Array();
  if (!list.IsArray()) return Failure("process.json: rlimits is not a list");
  bool changed = false;
  for (const Node& entry : wanted->items) {
    const std::string type = codec::StringOf(entry.Find("type"));
    auto same_type = [&](const Node& n) { return codec::StringOf(n.Find("type")) == type; };
    auto it = std::find_if(list.items.begin(), list.items.end(), same_type);
    if (it == list.items.end()) {
      list.items.push_back(entry);
      changed = true;
    } else if (!(*it == entry)) {
      *it = entry;
      changed = true;
    }
  }
  return changed;
}

}  // namespace podlimits::runcwrap
