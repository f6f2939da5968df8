// The node's Lease, as the kubelet's node lease controller keeps it: kube-node-lease/<node>,
// owned by the Node, held by the node, leaseDurationSeconds 40, renewTime a MicroTime renewed
// every period.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "listwatch/stored_object.h"
#include "nodeagent/node_agent.h"
#include "temp_dir.h"

namespace podlimits::nodeagent {
namespace {

using codec::Node;

std::string At(const Node& n, std::initializer_list<std::string_view> path) {
  const Node* v = n.FindPath(path);
  return v == nullptr ? "" : v->scalar;
}

TEST(NodeLease, CreatedOwnedByTheNodeAndRenewed) {
  podlimits::testing::TempDir dir{"podlimits-lease"};
  auto store = storage::ObjectStore::Open(dir / "state.db");
  ASSERT_TRUE(store);
  NodeAgentOptions options;
  options.data_dir = dir.path();
  options.node_name = "n1";
  options.node_status = [](const Node*, bool) {
    Node node = Node::Object();
    node.Set("apiVersion", Node::String("v1"));
    node.Set("kind", Node::String("Node"));
    Node meta = Node::Object();
    meta.Set("name", Node::String("n1"));
    node.Set("metadata", std::move(meta));
    node.Set("status", Node::Object());
    return node;
  };
  options.lease_renew_period = std::chrono::milliseconds(50);
  NodeAgent agent(**store, options);
  ASSERT_TRUE(agent.Start());
  auto read = [&] {
    auto got = (*store)->Get({"leases", "kube-node-lease", "n1"});
    EXPECT_TRUE(got) << "no Lease";
    return got ? apiserver::ParseStoredObject(got->data).value_or(Node::Object()) : Node::Object();
  };
  Node lease = read();
  auto node = (*store)->Get({"nodes", "", "n1"});
  ASSERT_TRUE(node);
  const std::string node_uid = At(*apiserver::ParseStoredObject(node->data), {"metadata", "uid"});
  EXPECT_EQ(At(lease, {"apiVersion"}), "coordination.k8s.io/v1");
  EXPECT_EQ(At(lease, {"kind"}), "Lease");
  EXPECT_EQ(At(lease, {"spec", "holderIdentity"}), "n1");
  EXPECT_EQ(At(lease, {"spec", "leaseDurationSeconds"}), "40");
  const std::string first = At(lease, {"spec", "renewTime"});
  // A MicroTime: six digits of fraction.
  EXPECT_EQ(first.size(), std::string("2026-11-26T01:02:03.000456Z").size()) << first;
  const Node* owners = lease.FindPath({"metadata", "ownerReferences"});
  ASSERT_TRUE(owners != nullptr && owners->items.size() == 1);
  EXPECT_EQ(At(owners->items[0], {"kind"}), "Node");
  EXPECT_EQ(At(owners->items[0], {"name"}), "n1");
  EXPECT_EQ(At(owners->items[0], {"uid"}), node_uid);
  const std::string uid = At(lease, {"metadata", "uid"});
  std::string renewed = first;
  for (int i = 0; i < 100 && renewed == first; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    renewed = At(read(), {"spec", "renewTime"});
  }
  agent.Stop();
  EXPECT_GT(renewed, first);
  EXPECT_EQ(At(read(), {"metadata", "uid"}), uid) << "renewed in place, not recreated";
}

}  // namespace
}  // namespace podlimits::nodeagent
