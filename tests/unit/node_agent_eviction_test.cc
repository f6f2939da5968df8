// The node agent under PID pressure (node_agent.h "evict"), with the pid observation faked: the
// Node's PIDPressure condition, its taint and events follow the eviction manager; a pod bound to
// the node under pressure is refused as the kubelet's eviction admission refuses it, a critical
// one is not; pressure clears after the transition period. The eviction of a running pod needs
// real monitors and is tested by tests/integration/pid_eviction.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "listwatch/stored_object.h"
#include "kubelet/eviction/eviction_threshold.h"
#include "nodeagent/node_agent.h"
#include "temp_dir.h"

namespace podlimits::nodeagent {
namespace {

using codec::Node;
using namespace std::chrono_literals;

std::string At(const Node& n, std::initializer_list<std::string_view> path) {
  const Node* v = n.FindPath(path);
  return v == nullptr ? "" : v->scalar;
}

Node PodObject(const std::string& name, const std::string& uid, std::optional<int> priority) {
  Node pod = Node::Object();
  pod.Set("apiVersion", Node::String("v1"));
  pod.Set("kind", Node::String("Pod"));
  Node meta = Node::Object();
  meta.Set("name", Node::String(name));
  meta.Set("namespace", Node::String("default"));
  meta.Set("uid", Node::String(uid));
  pod.Set("metadata", std::move(meta));
  Node spec = Node::Object();
  spec.Set("nodeName", Node::String("n1"));
  if (priority) spec.Set("priority", Node::Int(*priority));
  Node container = Node::Object();
  container.Set("name", Node::String("c"));
  container.Set("image", Node::String("busybox"));
  Node containers = Node::Array();
  containers.items.push_back(std::move(container));
  spec.Set("containers", std::move(containers));
  pod.Set("spec", std::move(spec));
  return pod;
}

class NodeAgentEviction : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::move(*storage::ObjectStore::Open(dir_ / "state.db"));
    NodeAgentOptions options;
    options.data_dir = dir_.path();
    options.node_name = "n1";
    options.node_status = [](const Node*, bool pid_pressure) {
      Node node = Node::Object();
      node.Set("apiVersion", Node::String("v1"));
      node.Set("kind", Node::String("Node"));
      Node meta = Node::Object();
      meta.Set("name", Node::String("n1"));
      node.Set("metadata", std::move(meta));
      Node condition = Node::Object();
      condition.Set("type", Node::String("PIDPressure"));
      condition.Set("status", Node::String(pid_pressure ? "True" : "False"));
      Node conditions = Node::Array();
      conditions.items.push_back(std::move(condition));
      Node status = Node::Object();
      status.Set("conditions", std::move(conditions));
      node.Set("status", std::move(status));
      return node;
    };
    auto threshold = kubelet::ParseThresholdStatement(kubelet::kSignalPIDAvailable, "1000");
    options.eviction.thresholds = {**threshold};
    options.eviction.pressure_transition_period = 300ms;
    options.eviction_period = 20ms;
    options.resync = 50ms;
    options.observe_pids = [this]() -> std::optional<kubelet::PidObservation> {
      return kubelet::PidObservation{100000, available_.load()};
    };
    options.metrics = &metrics_;
    options.max_pods = max_pods_;
    agent_ = std::make_unique<NodeAgent>(*store_, options);
    ASSERT_TRUE(agent_->Start());
  }
  void TearDown() override { agent_->Stop(); }

  std::optional<Node> Get(const storage::ObjectKey& key) {
    auto got = store_->Get(key);
    if (!got) return std::nullopt;
    return apiserver::ParseStoredObject(got->data);
  }

  // Waits up to 5 s for `done`.
  template <typename F>
  bool Eventually(F done) {
    for (int i = 0; i < 250; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(20ms);
    }
    return done();
  }

  bool NodeTainted() {
    auto node = Get({"nodes", "", "n1"});
    if (!node) return false;
    const Node* taints = node->FindPath({"spec", "taints"});
    if (taints == nullptr || !taints->IsArray()) return false;
    for (const Node& t : taints->items) {
      if (At(t, {"key"}) == "node.kubernetes.io/pid-pressure" && At(t, {"effect"}) == "NoSchedule") {
        return true;
      }
    }
    return false;
  }

  bool HasEvent(const std::string& ns, const std::string& reason, const std::string& message) {
    auto listed = store_->List("events", ns, false);
    if (!listed) return false;
    for (const auto& item : listed->items) {
      auto e = apiserver::ParseStoredObject(item.data);
      if (e && At(*e, {"reason"}) == reason && At(*e, {"message"}) == message) return true;
    }
    return false;
  }

  void CreatePod(Node pod) {
    const std::string name = At(pod, {"metadata", "name"});
    ASSERT_TRUE(store_->Create({"pods", "default", name}, [&](std::int64_t rv) {
      return apiserver::RenderStoredObject(pod, "Pod", rv);
    }));
  }

  podlimits::testing::TempDir dir_{"podlimits-eviction"};
  std::unique_ptr<storage::ObjectStore> store_;
  std::unique_ptr<NodeAgent> agent_;
  kubelet::MetricsRegistry metrics_;
  std::atomic<std::int64_t> available_{50000};
  std::int64_t max_pods_ = 110;
};

class NodeAgentMaxPods : public NodeAgentEviction {
 protected:
  NodeAgentMaxPods() { max_pods_ = 1; }
};

// maxPods: a pod bound past the node's capacity is refused by the kubelet's admission.
TEST_F(NodeAgentMaxPods, OutOfPods) {
  CreatePod(PodObject("first", "uid-first", std::nullopt));
  std::this_thread::sleep_for(200ms);
  CreatePod(PodObject("second", "uid-second", std::nullopt));
  ASSERT_TRUE(Eventually([&] {
    auto pod = Get({"pods", "default", "second"});
    return pod && At(*pod, {"status", "phase"}) == "Failed";
  }));
  auto refused = Get({"pods", "default", "second"});
  EXPECT_EQ(At(*refused, {"status", "reason"}), "OutOfpods");
  EXPECT_EQ(At(*refused, {"status", "message"}),
            "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1");
  // The first was admitted: started (pod.json written), never refused (no status.json).
  EXPECT_TRUE(std::filesystem::exists(dir_ / "pods/uid-first/pod.json"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "pods/uid-first/status.json"));
  auto first = Get({"pods", "default", "first"});
  EXPECT_NE(At(*first, {"status", "phase"}), "Failed");
}

TEST_F(NodeAgentEviction, PressureConditionTaintEventsAndAdmission) {
  EXPECT_TRUE(Eventually([&] { return HasEvent("default", "NodeHasSufficientPID",
                                               "Node n1 status is now: NodeHasSufficientPID"); }))
      << "the condition's first status is an event too";
  EXPECT_FALSE(NodeTainted());

  available_ = 500;
  ASSERT_TRUE(Eventually([&] {
    auto node = Get({"nodes", "", "n1"});
    return node && At(node->FindPath({"status", "conditions"})->items[0], {"status"}) == "True";
  }));
  EXPECT_TRUE(Eventually([&] { return NodeTainted(); }));
  EXPECT_TRUE(HasEvent("default", "NodeHasInsufficientPID",
                       "Node n1 status is now: NodeHasInsufficientPID"));
  EXPECT_TRUE(Eventually(
      [&] { return HasEvent("default", "EvictionThresholdMet", "Attempting to reclaim pids"); }));
  auto event_node = [&] {
    auto listed = store_->List("events", "default", false);
    for (const auto& item : listed->items) {
      auto e = apiserver::ParseStoredObject(item.data);
      if (e && At(*e, {"reason"}) == "EvictionThresholdMet") return *e;
    }
    return Node::Object();
  }();
  EXPECT_EQ(At(event_node, {"involvedObject", "kind"}), "Node");
  EXPECT_EQ(At(event_node, {"involvedObject", "name"}), "n1");
  EXPECT_EQ(At(event_node, {"type"}), "Warning");

  // A pod bound here under pressure: refused, Failed/Evicted, with the kubelet's message.
  CreatePod(PodObject("late", "uid-late", std::nullopt));
  ASSERT_TRUE(Eventually([&] {
    auto pod = Get({"pods", "default", "late"});
    return pod && At(*pod, {"status", "phase"}) == "Failed";
  }));
  auto refused = Get({"pods", "default", "late"});
  EXPECT_EQ(At(*refused, {"status", "reason"}), "Evicted");
  EXPECT_EQ(At(*refused, {"status", "message"}), "The node had condition: [PIDPressure]. ");
  EXPECT_TRUE(Eventually(
      [&] { return HasEvent("default", "Evicted", "The node had condition: [PIDPressure]. "); }));

  // A critical pod is admitted: the agent writes its pod.json to start a monitor (which cannot
  // start in a unit test: no binary), and no refused status.
  CreatePod(PodObject("critical", "uid-critical", 2000000000));
  const auto critical_dir = dir_ / "pods/uid-critical";
  EXPECT_TRUE(Eventually([&] { return std::filesystem::exists(critical_dir / "pod.json"); }));
  EXPECT_FALSE(std::filesystem::exists(critical_dir / "status.json"));
  auto critical = Get({"pods", "default", "critical"});
  EXPECT_NE(At(*critical, {"status", "reason"}), "Evicted");

  // Recovered: the condition holds for the transition period, then clears with its taint.
  available_ = 50000;
  EXPECT_TRUE(Eventually([&] { return !NodeTainted(); }));
  EXPECT_TRUE(HasEvent("default", "NodeHasSufficientPID",
                       "Node n1 status is now: NodeHasSufficientPID"));
  const std::string text = agent_->MetricsText();
  EXPECT_NE(text.find("podlimits_node_pid_pressure 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("podlimits_node_pid_available 50000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("process_resident_memory_bytes "), std::string::npos);
  EXPECT_NE(text.find("kubelet_running_pods "), std::string::npos);
}

}  // namespace
}  // namespace podlimits::nodeagent
