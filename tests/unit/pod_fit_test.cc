// The one-node scheduler's filters: cordon, taints and tolerations, node selectors and
// required node affinity, with kube-scheduler's reasons.
#include "nodeagent/pod_fit.h"

#include <gtest/gtest.h>

#include "codec/json_codec.h"
#include "test_support.h"

namespace podlimits::nodeagent {
namespace {

using codec::Node;
using podlimits::testing::ParseJsonValue;

TEST(PodFitTest, FiltersInTheSchedulersOrder) {
  const std::string node_labels =
      R"("metadata":{"name":"n1","labels":{"pool":"ci","disk":"ssd","cores":"8"}})";
  struct Case {
    std::string name, node_spec, pod_spec;
    std::optional<std::string> reason;
  };
  const std::string unschedulable = "node(s) were unschedulable";
  const std::string affinity = "node(s) didn't match Pod's node affinity/selector";
  auto required = [](const std::string& terms) {
    return R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{)"
           R"("nodeSelectorTerms":)" + terms + "}}}";
  };
  const std::vector<Case> cases = {
      {"plain", "{}", "{}", std::nullopt},
      {"cordoned", R"({"unschedulable":true})", "{}", unschedulable},
      {"cordoned, tolerated by key",
       R"({"unschedulable":true})",
       R"({"tolerations":[{"key":"node.kubernetes.io/unschedulable","operator":"Exists",)"
       R"("effect":"NoSchedule"}]})",
       std::nullopt},
      {"cordoned, tolerated by everything", R"({"unschedulable":true})",
       R"({"tolerations":[{"operator":"Exists"}]})", std::nullopt},
      {"cordoned, NoExecute toleration does not do", R"({"unschedulable":true})",
       R"({"tolerations":[{"operator":"Exists","effect":"NoExecute"}]})", unschedulable},
      {"cordon before taints",
       R"({"unschedulable":true,"taints":[{"key":"a","value":"b","effect":"NoSchedule"}]})", "{}",
       unschedulable},
      {"NoSchedule taint", R"({"taints":[{"key":"dedicated","value":"ci","effect":"NoSchedule"}]})",
       "{}", "node(s) had untolerated taint {dedicated: ci}"},
      {"NoExecute taint, empty value", R"({"taints":[{"key":"gone","effect":"NoExecute"}]})", "{}",
       "node(s) had untolerated taint {gone: }"},
      {"PreferNoSchedule only scores",
       R"({"taints":[{"key":"soft","effect":"PreferNoSchedule"}]})", "{}", std::nullopt},
      {"tolerated with Equal",
       R"({"taints":[{"key":"dedicated","value":"ci","effect":"NoSchedule"}]})",
       R"({"tolerations":[{"key":"dedicated","operator":"Equal","value":"ci"}]})", std::nullopt},
      {"Equal with another value",
       R"({"taints":[{"key":"dedicated","value":"ci","effect":"NoSchedule"}]})",
       R"({"tolerations":[{"key":"dedicated","value":"web"}]})",
       "node(s) had untolerated taint {dedicated: ci}"},
      {"toleration for another effect",
       R"({"taints":[{"key":"dedicated","value":"ci","effect":"NoSchedule"}]})",
       R"({"tolerations":[{"key":"dedicated","operator":"Exists","effect":"NoExecute"}]})",
       "node(s) had untolerated taint {dedicated: ci}"},
      {"nodeSelector matches", "{}", R"({"nodeSelector":{"pool":"ci"}})", std::nullopt},
      {"nodeSelector value differs", "{}", R"({"nodeSelector":{"pool":"web"}})", affinity},
      {"nodeSelector label missing", "{}", R"({"nodeSelector":{"gpu":""}})", affinity},
      {"In", "{}", "{" + required(R"([{"matchExpressions":[{"key":"disk","operator":"In","values":["ssd","nvme"]}]}])") + "}", std::nullopt},
      {"NotIn", "{}", "{" + required(R"([{"matchExpressions":[{"key":"disk","operator":"NotIn","values":["ssd"]}]}])") + "}", affinity},
      {"DoesNotExist", "{}", "{" + required(R"([{"matchExpressions":[{"key":"gpu","operator":"DoesNotExist"}]}])") + "}", std::nullopt},
      {"Gt", "{}", "{" + required(R"([{"matchExpressions":[{"key":"cores","operator":"Gt","values":["4"]}]}])") + "}", std::nullopt},
      {"Lt", "{}", "{" + required(R"([{"matchExpressions":[{"key":"cores","operator":"Lt","values":["4"]}]}])") + "}", affinity},
      {"terms are ORed", "{}", "{" + required(R"([{"matchExpressions":[{"key":"gpu","operator":"Exists"}]},{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}])") + "}", std::nullopt},
      {"an empty term matches nothing", "{}", "{" + required(R"([{}])") + "}", affinity},
  };
  for (const auto& c : cases) {
    const codec::Node node = ParseJsonValue("{" + node_labels + R"(,"spec":)" + c.node_spec + "}");
    const codec::Node pod = ParseJsonValue(R"({"spec":)" + c.pod_spec + "}");
    EXPECT_EQ(UnfitReason(pod, node), c.reason) << c.name;
  }
}

TEST(PodFitTest, TheSchedulersMessage) {
  EXPECT_EQ(FitErrorMessage("node(s) were unschedulable"),
            "0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are "
            "available: 1 Preemption is not helpful for scheduling.");
  EXPECT_EQ(FitErrorMessage("Too many pods"),
            "0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No "
            "preemption victims found for incoming pod.");
}

TEST(PodFitTest, PodCountWithinAllocatablePods) {
  const Node node = ParseJsonValue(
      R"({"metadata":{"name":"n1"},"status":{"allocatable":{"pods":"3"}}})");
  const Node pod = ParseJsonValue(R"({"spec":{}})");
  EXPECT_EQ(UnfitReason(pod, node, 0), std::nullopt);
  EXPECT_EQ(UnfitReason(pod, node, 2), std::nullopt);
  EXPECT_EQ(UnfitReason(pod, node, 3), "Too many pods");
  // Taints are looked at first.
  const Node cordoned = ParseJsonValue(
      R"({"metadata":{"name":"n1"},"spec":{"unschedulable":true},)"
      R"("status":{"allocatable":{"pods":"3"}}})");
  EXPECT_EQ(UnfitReason(pod, cordoned, 3), "node(s) were unschedulable");
}

// NodeDeclaredFeatures: a pod is bound only to a node that declares every feature it needs
// (seed 001: the scheduler keeps pid-limited pods off cgroup v1 nodes), else it stays Pending with
// kube-scheduler's reason, unresolvable by preemption.
TEST(PodFitTest, DeclaredFeatures) {
  struct Case {
    std::string name, declared, pod_spec;
    std::optional<std::string> reason;
  };
  const std::string unmatched = "node(s) didn't match Pod's required features";
  const std::string pid = R"("resources":{"limits":{"pid":"1024"}})";
  auto container = [](const std::string& security_context) {
    return R"("containers":[{"name":"app","image":"busybox","securityContext":)" +
           security_context + "}]";
  };
  const std::string ulimits = container(R"({"ulimits":[{"name":"nofile","soft":1024,"hard":2048}]})");
  const std::string writable = container(R"({"cgroupOptions":{"mountMode":"Writable"}})");
  const std::vector<Case> cases = {
      {"needs nothing, declares nothing", "[]", R"({"containers":[{"name":"app"}]})", std::nullopt},
      {"pid limit on a v2 node", R"(["PerPodPIDLimit"])", "{" + pid + "}", std::nullopt},
      {"pid limit on a v1 node", R"(["ContainerUlimits"])", "{" + pid + "}", unmatched},
      {"pid limit, node without the list", "", "{" + pid + "}", unmatched},
      {"ulimits declared", R"(["ContainerUlimits"])", "{" + ulimits + "}", std::nullopt},
      {"ulimits not declared", "[]", "{" + ulimits + "}", unmatched},
      {"an init container's ulimits count",
       "[]",
       R"({"initContainers":[{"name":"i","securityContext":{"ulimits":[{"name":"nproc","soft":1,"hard":1}]}}]})",
       unmatched},
      {"writable cgroup declared", R"(["SupportsCgroupOptions"])", "{" + writable + "}",
       std::nullopt},
      {"writable cgroup on a node with only the others",
       R"(["ContainerUlimits","PerPodPIDLimit"])", "{" + writable + "}", unmatched},
      {"ReadOnly needs nothing", "[]",
       "{" + container(R"({"cgroupOptions":{"mountMode":"ReadOnly"}})") + "}", std::nullopt},
      {"all three, all declared", R"(["ContainerUlimits","PerPodPIDLimit","SupportsCgroupOptions"])",
       R"({"resources":{"limits":{"pid":"1024"}},"containers":[{"name":"app","securityContext":)"
       R"({"ulimits":[{"name":"nofile","soft":1,"hard":1}],"cgroupOptions":{"mountMode":"Writable"}}}]})",
       std::nullopt},
  };
  for (const auto& c : cases) {
    const std::string status =
        c.declared.empty() ? "" : R"(,"status":{"declaredFeatures":)" + c.declared + "}";
    const Node node = ParseJsonValue(R"({"metadata":{"name":"n1"})" + status + "}");
    const Node pod = ParseJsonValue(R"({"spec":)" + c.pod_spec + "}");
    EXPECT_EQ(UnfitReason(pod, node), c.reason) << c.name;
  }
  // A node's own filters come first: a cordoned node says so, whatever the features.
  const Node cordoned = ParseJsonValue(R"({"metadata":{"name":"n1"},"spec":{"unschedulable":true}})");
  EXPECT_EQ(UnfitReason(ParseJsonValue(R"({"spec":{)" + pid + "}}"), cordoned),
            "node(s) were unschedulable");
}

}  // namespace
}  // namespace podlimits::nodeagent
