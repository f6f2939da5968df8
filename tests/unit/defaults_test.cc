#include "api/defaults.h"

#include <gtest/gtest.h>

#include "api/yaml_codec.h"
#include "test_support.h"

namespace podlimits::api {
namespace {

TEST(SetDefaultsPod, FillsWhatTheApiserverFills) {
  Node pod = podlimits::testing::DefaultedPodTree(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n"
      "  - name: a\n    image: busybox\n    ports: [{containerPort: 80}]\n"
      "    resources: {limits: {cpu: 1.5m, memory: 1Gi}, requests: {memory: 512Mi}}\n"
      "  - name: b\n    image: busybox:1.36\n  volumes: [{name: v}]\n");
  const Node& spec = *pod.Find("spec");
  EXPECT_EQ(pod.FindPath({"metadata", "namespace"})->scalar, "default");
  EXPECT_EQ(spec.Find("restartPolicy")->scalar, "Always");
  EXPECT_EQ(spec.Find("terminationGracePeriodSeconds")->scalar, "30");
  EXPECT_EQ(spec.Find("dnsPolicy")->scalar, "ClusterFirst");
  EXPECT_EQ(spec.Find("schedulerName")->scalar, "default-scheduler");
  EXPECT_TRUE(spec.Find("securityContext")->IsObject());
  const Node& a = spec.Find("containers")->items[0];
  const Node& b = spec.Find("containers")->items[1];
  EXPECT_EQ(a.Find("imagePullPolicy")->scalar, "Always");
  EXPECT_EQ(b.Find("imagePullPolicy")->scalar, "IfNotPresent");
  EXPECT_EQ(a.Find("terminationMessagePath")->scalar, "/dev/termination-log");
  EXPECT_EQ(a.Find("ports")->items[0].Find("protocol")->scalar, "TCP");
  // Requests default to limits per resource; quantities round up to milli.
  EXPECT_EQ(a.FindPath({"resources", "limits", "cpu"})->scalar, "2m");
  EXPECT_EQ(a.FindPath({"resources", "requests", "cpu"})->scalar, "2m");
  EXPECT_EQ(a.FindPath({"resources", "requests", "memory"})->scalar, "512Mi");
  EXPECT_TRUE(spec.Find("volumes")->items[0].Find("emptyDir")->IsObject());
}

TEST(SetDefaultsPod, PodLevelRequestsDefaultButPidStaysLimitOnly) {
  Node pod = podlimits::testing::DefaultedPodTree(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  resources: {limits: {cpu: 2, "
      "pid: 4096}}\n"
      "  containers:\n  - {name: a, image: i, resources: {requests: {cpu: 500m}}}\n");
  const Node* requests = pod.FindPath({"spec", "resources", "requests"});
  ASSERT_NE(requests, nullptr);
  EXPECT_EQ(requests->Find("cpu")->scalar, "500m");
  EXPECT_EQ(requests->Find("pid"), nullptr);
}

TEST(CanonicalizeOrder, GoStructOrderAndSortedMaps) {
  Node pod = podlimits::testing::DecodeOne(
                 "spec:\n  containers: [{image: i, name: a}]\nmetadata:\n  labels: {z: \"1\", a: "
                 "\"2\"}\n  name: p\n"
                 "kind: Pod\napiVersion: v1\n")
                 .tree;
  CanonicalizeOrder(pod, "Pod");
  EXPECT_EQ(
      EncodeYaml(pod),
      "kind: Pod\napiVersion: v1\nmetadata:\n  name: p\n  labels:\n    a: \"2\"\n    z: \"1\"\n"
      "spec:\n  containers:\n  - name: a\n    image: i\n");
}

TEST(SetDefaultsNamespace, LabelFinalizerPhase) {
  Node ns =
      podlimits::testing::DecodeOne("apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n")
          .tree;
  SetDefaultsNamespace(ns);
  EXPECT_EQ(ns.FindPath({"metadata", "labels", "kubernetes.io/metadata.name"})->scalar, "team-a");
  EXPECT_EQ(ns.FindPath({"spec", "finalizers"})->items[0].scalar, "kubernetes");
  EXPECT_EQ(ns.FindPath({"status", "phase"})->scalar, "Active");
}

}  // namespace
}  // namespace podlimits::api

namespace podlimits::api {
namespace {

TEST(SetDefaultsPod, PidOnlyPodLevelLimitsDefaultNoRequests) {
  // KEP-6063: pid is limit-only and has no QoS effect, so it does not turn on pod-level request
  // defaulting (which would make a Guaranteed pod Burstable).
  Node pod = podlimits::testing::DefaultedPodTree(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  resources: {limits: {pid: "
      "4096}}\n"
      "  containers:\n  - {name: a, image: i, resources: {limits: {cpu: 1, memory: 1Gi}}}\n");
  EXPECT_EQ(pod.FindPath({"spec", "resources", "requests"}), nullptr);
  EXPECT_EQ(pod.FindPath({"spec", "resources", "limits", "pid"})->scalar, "4096");
}

}  // namespace
}  // namespace podlimits::api
