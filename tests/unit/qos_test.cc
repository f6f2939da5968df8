// QoS classes as upstream's ComputePodQOS computes them, on decoded and defaulted pods.
#include "api/qos.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.h"

namespace podlimits::api {
namespace {

struct QosCase {
  std::string name;
  std::string spec;  // YAML of the pod's spec, indented by two spaces
  QosClass expected;
  bool pod_level_resources = true;
};

Pod PodWithSpec(const std::string& spec) {
  return podlimits::testing::DefaultedPod(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n" + spec);
}

TEST(PodQos, ComputePodQos) {
  const std::vector<QosCase> cases = {
      {"no resources", R"(
  containers:
  - name: a
    image: busybox
)",
       QosClass::kBestEffort},
      {"only resources that do not count", R"(
  containers:
  - name: a
    image: busybox
    resources:
      limits: {ephemeral-storage: 1Gi}
)",
       QosClass::kBestEffort},
      {"zero cpu and memory do not count", R"(
  containers:
  - name: a
    image: busybox
    resources:
      limits: {cpu: "0", memory: "0"}
)",
       QosClass::kBestEffort},
      {"limits only: requests default to them", R"(
  containers:
  - name: a
    image: busybox
    resources:
      limits: {cpu: 500m, memory: 64Mi}
)",
       QosClass::kGuaranteed},
      {"requests equal limits in two containers", R"(
  containers:
  - name: a
    image: busybox
    resources:
      requests: {cpu: 100m, memory: 32Mi}
      limits: {cpu: 100m, memory: 32Mi}
  - name: b
    image: busybox
    resources:
      limits: {cpu: "1", memory: 1Gi}
)",
       QosClass::kGuaranteed},
      {"equal by value, not by spelling", R"(
  containers:
  - name: a
    image: busybox
    resources:
      requests: {cpu: 1000m, memory: 1024Mi}
      limits: {cpu: "1", memory: 1Gi}
)",
       QosClass::kGuaranteed},
      {"cpu limit only", R"(
  containers:
  - name: a
    image: busybox
    resources:
      limits: {cpu: 500m}
)",
       QosClass::kBurstable},
      {"requests below limits", R"(
  containers:
  - name: a
    image: busybox
    resources:
      requests: {cpu: 100m, memory: 32Mi}
      limits: {cpu: 200m, memory: 32Mi}
)",
       QosClass::kBurstable},
      {"requests only", R"(
  containers:
  - name: a
    image: busybox
    resources:
      requests: {memory: 32Mi}
)",
       QosClass::kBurstable},
      {"guaranteed and best-effort containers", R"(
  containers:
  - name: a
    image: busybox
    resources:
      limits: {cpu: 100m, memory: 32Mi}
  - name: b
    image: busybox
)",
       QosClass::kBurstable},
      {"init container counts", R"(
  initContainers:
  - name: init
    image: busybox
  containers:
  - name: a
    image: busybox
    resources:
      limits: {cpu: 100m, memory: 32Mi}
)",
       QosClass::kBurstable},
      {"init container with guaranteed resources", R"(
  initContainers:
  - name: init
    image: busybox
    resources:
      limits: {cpu: 100m, memory: 32Mi}
  containers:
  - name: a
    image: busybox
    resources:
      limits: {cpu: 100m, memory: 32Mi}
)",
       QosClass::kGuaranteed},
      // Pod-level requests are spelled out, so these cases do not depend on API defaulting.
      {"pod-level limits decide", R"(
  resources:
    requests: {cpu: "1", memory: 128Mi}
    limits: {cpu: "1", memory: 128Mi}
  containers:
  - name: a
    image: busybox
)",
       QosClass::kGuaranteed},
      {"pod-level requests below limits", R"(
  resources:
    requests: {cpu: 500m, memory: 128Mi}
    limits: {cpu: "1", memory: 128Mi}
  containers:
  - name: a
    image: busybox
)",
       QosClass::kBurstable},
      {"pod-level memory only", R"(
  resources:
    requests: {memory: 128Mi}
    limits: {memory: 128Mi}
  containers:
  - name: a
    image: busybox
    resources:
      limits: {memory: 32Mi}
)",
       QosClass::kBurstable},
      // PrepareForCreate defaults the pod-level cpu limit (every container limits cpu) and then
      // the cpu request from the containers' requests: both 100m, so the pod is Guaranteed.
      {"pod-level memory, cpu defaulted from containers", R"(
  resources:
    requests: {memory: 128Mi}
    limits: {memory: 128Mi}
  containers:
  - name: a
    image: busybox
    resources:
      limits: {cpu: 100m, memory: 32Mi}
)",
       QosClass::kGuaranteed},
      // KEP-6063: pid has no QoS effect. A pod whose only pod-level resource is the pid limit
      // gets no pod-level request defaulting and is classified by its containers.
      {"pod-level pid limit with guaranteed containers", R"(
  resources:
    requests: {}
    limits: {pid: "2048"}
  containers:
  - name: a
    image: busybox
    resources:
      limits: {cpu: 100m, memory: 32Mi}
)",
       QosClass::kGuaranteed},
      {"pod-level pid limit, containers without resources", R"(
  resources:
    requests: {}
    limits: {pid: "2048"}
  containers:
  - name: a
    image: busybox
)",
       QosClass::kBestEffort},
      {"pod-level resources ignored without the gate", R"(
  resources:
    requests: {}
    limits: {pid: "2048"}
  containers:
  - name: a
    image: busybox
    resources:
      limits: {cpu: 100m, memory: 32Mi}
)",
       QosClass::kGuaranteed, false},
  };
  for (const QosCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ComputePodQos(PodWithSpec(c.spec), c.pod_level_resources), c.expected)
        << Name(ComputePodQos(PodWithSpec(c.spec), c.pod_level_resources));
  }
}

TEST(PodQos, Names) {
  EXPECT_EQ(Name(QosClass::kGuaranteed), "Guaranteed");
  EXPECT_EQ(Name(QosClass::kBurstable), "Burstable");
  EXPECT_EQ(Name(QosClass::kBestEffort), "BestEffort");
}

}  // namespace
}  // namespace podlimits::api
