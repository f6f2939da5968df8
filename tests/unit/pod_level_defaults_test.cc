// Pod-level resource defaulting (DefaultPodLevelResources), after API defaulting, as the
// registry strategy's PrepareForCreate does it.
#include "api/pod_level_defaults.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.h"

namespace podlimits::api {
namespace {

// "cpu=1 memory=1Gi": a resource list as sorted name=value pairs ("-" when absent).
std::string Pairs(const codec::Node* list) {
  if (!list) return "-";
  std::vector<std::string> pairs;
  for (const auto& m : list->members) pairs.push_back(m.key + "=" + m.value.scalar);
  std::sort(pairs.begin(), pairs.end());
  std::string out;
  for (const auto& p : pairs) out += (out.empty() ? "" : " ") + p;
  return out;
}

struct Case {
  std::string name;
  std::string spec;  // the pod's spec, indented by two spaces
  std::string requests;
  std::string limits;
};

TEST(DefaultPodLevelResources, AsCurrentUpstream) {
  const std::vector<Case> cases = {
      {"requests from the init-container peak, not the regular sum", R"(
  resources: {limits: {cpu: 2}}
  initContainers:
  - {name: init, image: i, resources: {requests: {cpu: 1500m}}}
  containers:
  - {name: a, image: i, resources: {requests: {cpu: 500m}}}
)",
       "cpu=1500m", "cpu=2"},
      {"requests sum regular containers and sidecars", R"(
  resources: {limits: {memory: 1Gi}}
  initContainers:
  - {name: side, image: i, restartPolicy: Always, resources: {requests: {memory: 300Mi}}}
  containers:
  - {name: a, image: i, resources: {requests: {memory: 500Mi}}}
)",
       "memory=800Mi", "memory=1Gi"},
      {"no container requests: requests default to the pod limits", R"(
  resources: {limits: {cpu: 1, memory: 1Gi}}
  containers:
  - {name: a, image: i}
)",
       "cpu=1 memory=1Gi", "cpu=1 memory=1Gi"},
      {"pod requests only: limits default when every container is limited", R"(
  resources: {requests: {cpu: "1"}}
  containers:
  - {name: a, image: i, resources: {limits: {cpu: 500m}}}
  - {name: b, image: i, resources: {limits: {cpu: 500m}}}
)",
       "cpu=1", "cpu=1"},
      {"limits are at least the pod request", R"(
  resources: {requests: {cpu: "2"}}
  containers:
  - {name: a, image: i, resources: {limits: {cpu: 500m}}}
)",
       "cpu=2", "cpu=2"},
      {"no limit default when one container is unlimited", R"(
  resources: {requests: {cpu: "1"}}
  containers:
  - {name: a, image: i, resources: {limits: {cpu: 500m}}}
  - {name: b, image: i}
)",
       "cpu=1", "-"},
      {"init containers count for all containers have a limit", R"(
  resources: {requests: {memory: 1Gi}}
  initContainers:
  - {name: init, image: i}
  containers:
  - {name: a, image: i, resources: {limits: {memory: 100Mi}}}
)",
       "memory=1Gi", "-"},
      {"hugepage limits from the containers, then requests from the limits", R"(
  resources: {requests: {memory: 1Gi}}
  containers:
  - {name: a, image: i, resources: {limits: {hugepages-2Mi: 4Mi, memory: 100Mi}}}
)",
       "hugepages-2Mi=4Mi memory=1Gi", "hugepages-2Mi=4Mi memory=1Gi"},
      {"no hugepage limit default beside a pod hugepage request", R"(
  resources: {requests: {memory: 1Gi, hugepages-2Mi: 2Mi}}
  containers:
  - {name: a, image: i, resources: {limits: {hugepages-2Mi: 4Mi}}}
)",
       "hugepages-2Mi=2Mi memory=1Gi", "-"},
      {"extended resources are not pod-level resources", R"(
  resources: {limits: {cpu: 1}}
  containers:
  - {name: a, image: i, resources: {limits: {example.com/gpu: 1}}}
)",
       "cpu=1", "cpu=1"},
      {"a pid-only spec.resources is left alone", R"(
  resources: {limits: {pid: 4096}}
  containers:
  - {name: a, image: i, resources: {limits: {cpu: 1}}}
)",
       "-", "pid=4096"},
      {"pid stays limit-only", R"(
  resources: {limits: {cpu: 2, pid: 4096}}
  containers:
  - {name: a, image: i, resources: {requests: {cpu: 500m}}}
)",
       "cpu=500m", "cpu=2 pid=4096"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    codec::Node pod = podlimits::testing::DefaultedPodTree(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:" + c.spec);
    const codec::Node* resources = pod.FindPath({"spec", "resources"});
    ASSERT_NE(resources, nullptr);
    EXPECT_EQ(Pairs(resources->Find("requests")), c.requests);
    EXPECT_EQ(Pairs(resources->Find("limits")), c.limits);
  }
}

}  // namespace
}  // namespace podlimits::api
