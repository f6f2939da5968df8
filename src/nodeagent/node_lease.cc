// The node agent's Lease (node_agent.h "node status"): the kubelet's node lease controller.
#include "nodeagent/node_agent.h"

#include <fmt/format.h>

#include "listwatch/stored_object.h"
#include "base/clock_text.h"
#include "base/uuid.h"
#include "kubelet/plan/pod_plan.h"
#include "nodeagent/object_fields.h"
#include "nodeagent/managed_writes.h"

namespace podlimits::nodeagent {

using codec::Node;

// The kubelet's node lease controller: kube-node-lease/<node>, owned by the Node, held by the
// node, renewed with the time of each renewal (a MicroTime).
void NodeAgent::RenewLease() {
  if (!options_.node_status) return;  // no Node object, no Lease
  WriteOwnObject(
      {"leases", "kube-node-lease", options_.node_name}, "Lease", "renew node lease", kKubeletManager, "",
      [&](std::optional<Node> lease) -> std::optional<Node> {
        if (!lease) {
          auto node = store_.Get({"nodes", "", options_.node_name});
          if (!node) return std::nullopt;  // registered first; the next renewal makes it
          auto node_tree = apiserver::ParseStoredObject(node->data);
          if (!node_tree) return std::nullopt;
          lease = Node::Object();
          lease->Set("kind", Node::String("Lease"));
          lease->Set("apiVersion", Node::String("coordination.k8s.io/v1"));
          Node meta = Node::Object();
          meta.Set("name", Node::String(options_.node_name));
          meta.Set("namespace", Node::String("kube-node-lease"));
          meta.Set("uid", Node::String(NewUuid()));
          meta.Set("creationTimestamp", Node::String(Rfc3339Now()));
          Node owner = Node::Object();
          owner.Set("apiVersion", Node::String("v1"));
          owner.Set("kind", Node::String("Node"));
          owner.Set("name", Node::String(options_.node_name));
          owner.Set("uid", Node::String(Str(*node_tree, {"metadata", "uid"})));
          Node owners = Node::Array();
          owners.items.push_back(std::move(owner));
          meta.Set("ownerReferences", std::move(owners));
          lease->Set("metadata", std::move(meta));
        }
        Node spec = Node::Object();
        spec.Set("holderIdentity", Node::String(options_.node_name));
        spec.Set("leaseDurationSeconds", Node::Int(options_.lease_duration_seconds));
        spec.Set("renewTime", Node::String(Rfc3339MicroNow()));
        lease->Set("spec", std::move(spec));
        return lease;
      });
}

}  // namespace podlimits::nodeagent
