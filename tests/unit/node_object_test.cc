// The Node object the node registers: capacity and allocatable with pid, conditions and their
// transition times, the declared features.
#include "kubelet/status/node_object.h"

#include <gtest/gtest.h>

namespace podlimits::kubelet {
namespace {

NodeObjectInput Input() {
  NodeObjectInput in;
  in.info.node_name = "n1";
  in.info.capacity = 32768;
  in.info.allocatable = 31744;
  in.info.runtime.name = "crun";
  in.info.runtime.version = "1.8.1";
  in.capacity["cpu"] = *resource::Quantity::Parse("2");
  in.allocatable["cpu"] = *resource::Quantity::Parse("2");
  in.internal_ip = "10.0.0.5";
  in.kubelet_version = "v1.32.0+podlimits";
  return in;
}

const codec::Node* Condition(const codec::Node& node, std::string_view type) {
  for (const auto& c : node.FindPath({"status", "conditions"})->items) {
    if (c.Find("type")->scalar == type) return &c;
  }
  return nullptr;
}

TEST(NodeObjectTest, PublishesPidBesideUpstreamsResources) {
  codec::Node node = NodeObject(Input(), {}, nullptr, "2026-11-26T00:00:00Z");
  EXPECT_EQ(node.FindPath({"metadata", "name"})->scalar, "n1");
  EXPECT_EQ(node.FindPath({"metadata", "labels", "kubernetes.io/hostname"})->scalar, "n1");
  EXPECT_EQ(node.FindPath({"status", "capacity", "pid"})->scalar, "32768");
  EXPECT_EQ(node.FindPath({"status", "allocatable", "pid"})->scalar, "31744");
  EXPECT_EQ(node.FindPath({"status", "allocatable", "pods"})->scalar, "110");
  EXPECT_EQ(node.FindPath({"status", "allocatable", "cpu"})->scalar, "2");
  EXPECT_EQ(node.FindPath({"status", "nodeInfo", "containerRuntimeVersion"})->scalar,
            "crun://1.8.1");
  EXPECT_EQ(node.FindPath({"status", "addresses"})->items[0].Find("address")->scalar, "10.0.0.5");
  const codec::Node* ready = Condition(node, "Ready");
  EXPECT_EQ(ready->Find("status")->scalar, "True");
  EXPECT_EQ(ready->Find("reason")->scalar, "KubeletReady");
  EXPECT_EQ(Condition(node, "PIDPressure")->Find("reason")->scalar, "KubeletHasSufficientPID");
}

TEST(NodeObjectTest, TransitionTimesHoldWhileStatusHolds) {
  NodeObjectInput in = Input();
  codec::Node first = NodeObject(in, {}, nullptr, "2026-11-26T00:00:00Z");
  codec::Node second = NodeObject(in, {}, &first, "2026-11-26T00:01:00Z");
  EXPECT_EQ(Condition(second, "Ready")->Find("lastTransitionTime")->scalar,
            "2026-11-26T00:00:00Z");
  EXPECT_EQ(Condition(second, "Ready")->Find("lastHeartbeatTime")->scalar,
            "2026-11-26T00:01:00Z");
  in.pid_pressure = true;
  codec::Node third = NodeObject(in, {}, &second, "2026-11-26T00:02:00Z");
  const codec::Node* pressure = Condition(third, "PIDPressure");
  EXPECT_EQ(pressure->Find("status")->scalar, "True");
  EXPECT_EQ(pressure->Find("reason")->scalar, "KubeletHasInsufficientPID");
  EXPECT_EQ(pressure->Find("lastTransitionTime")->scalar, "2026-11-26T00:02:00Z");
}

TEST(NodeObjectTest, NotReadyWithoutARuntime) {
  NodeObjectInput in = Input();
  in.info.runtime.name.clear();
  codec::Node node = NodeObject(in, {}, nullptr, "2026-11-26T00:00:00Z");
  EXPECT_EQ(Condition(node, "Ready")->Find("status")->scalar, "False");
  EXPECT_EQ(Condition(node, "Ready")->Find("reason")->scalar, "KubeletNotReady");
}

}  // namespace
}  // namespace podlimits::kubelet
