#include "apiserver/workload_update.h"

#include "codec/json_codec.h"

namespace podlimits::apiserver {

using codec::Node;

void PrepareWorkloadUpdate(Node& next, const Node& stored) {
  const Node* before = stored.Find("spec");
  const Node* after = next.Find("spec");
  const std::string a = before ? codec::EncodeJsonSorted(*before) : "";
  const std::string b = after ? codec::EncodeJsonSorted(*after) : "";
  if (a == b) return;
  const std::int64_t generation =
      codec::IntOf(stored.FindPath({"metadata", "generation"})).value_or(0);
  next.Ensure("metadata").Set("generation", Node::Int(generation + 1));
}

}  // namespace podlimits::apiserver
