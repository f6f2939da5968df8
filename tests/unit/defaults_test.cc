#include "api/defaults.h"

#include <gtest/gtest.h>

#include "codec/yaml_codec.h"
#include "test_support.h"

namespace podlimits::api {
namespace {

TEST(SetDefaultsPod, FillsWhatTheApiserverFills) {
  codec::Node pod = podlimits::testing::DefaultedPodTree(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n"
      "  - name: a\n    image: busybox\n    ports: [{containerPort: 80}]\n"
      "    resources: {limits: {cpu: 1.5m, memory: 1Gi}, requests: {memory: 512Mi}}\n"
      "  - name: b\n    image: busybox:1.36\n  volumes: [{name: v}]\n");
  const codec::Node& spec = *pod.Find("spec");
  EXPECT_EQ(pod.FindPath({"metadata", "namespace"})->scalar, "default");
  EXPECT_EQ(spec.Find("restartPolicy")->scalar, "Always");
  EXPECT_EQ(spec.Find("terminationGracePeriodSeconds")->scalar, "30");
  EXPECT_EQ(spec.Find("dnsPolicy")->scalar, "ClusterFirst");
  EXPECT_EQ(spec.Find("schedulerName")->scalar, "default-scheduler");
  EXPECT_TRUE(spec.Find("securityContext")->IsObject());
  const codec::Node& a = spec.Find("containers")->items[0];
  const codec::Node& b = spec.Find("containers")->items[1];
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

// Go struct order, sorted maps, and the structs Go's encoder writes even when empty (a
// container's resources, the pod's status).
TEST(CanonicalizeOrder, GoStructOrderAndSortedMaps) {
  codec::Node pod = podlimits::testing::DecodeOne(
                 "spec:\n  containers: [{image: i, name: a}]\nmetadata:\n  labels: {z: \"1\", a: "
                 "\"2\"}\n  name: p\n"
                 "kind: Pod\napiVersion: v1\n")
                 .tree;
  CanonicalizeOrder(pod, "Pod");
  EXPECT_EQ(
      codec::EncodeYaml(pod),
      "kind: Pod\napiVersion: v1\nmetadata:\n  name: p\n  labels:\n    a: \"2\"\n    z: \"1\"\n"
      "spec:\n  containers:\n  - name: a\n    image: i\n    resources: {}\nstatus: {}\n");
}

TEST(SetDefaultsNamespace, LabelFinalizerPhase) {
  codec::Node ns =
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

codec::Node Defaulted(std::string_view spec) {
  codec::Node pod = podlimits::testing::DecodeOne(
                 "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + std::string(spec))
                 .tree;
  SetDefaultsPod(pod);
  return pod;
}

TEST(SetDefaultsPod, HostNetworkContainerPortsBecomeHostPorts) {
  codec::Node pod = Defaulted(
      "  hostNetwork: true\n"
      "  initContainers: [{name: i, image: i, ports: [{containerPort: 81}]}]\n"
      "  containers: [{name: a, image: i, ports: [{containerPort: 80}, {containerPort: 90, "
      "hostPort: 9090}, {containerPort: 91, hostPort: 0}]}]\n");
  const codec::Node& ports = *pod.FindPath({"spec"})->Find("containers")->items[0].Find("ports");
  EXPECT_EQ(ports.items[0].Find("hostPort")->scalar, "80");
  EXPECT_EQ(ports.items[1].Find("hostPort")->scalar, "9090");
  EXPECT_EQ(ports.items[2].Find("hostPort")->scalar, "91");
  const codec::Node& init = pod.FindPath({"spec"})->Find("initContainers")->items[0];
  EXPECT_EQ(init.Find("ports")->items[0].Find("hostPort")->scalar, "81");
  // Without hostNetwork nothing is added.
  codec::Node plain = Defaulted("  containers: [{name: a, image: i, ports: [{containerPort: 80}]}]\n");
  EXPECT_EQ(plain.FindPath({"spec"})
                ->Find("containers")
                ->items[0]
                .Find("ports")
                ->items[0]
                .Find("hostPort"),
            nullptr);
}

TEST(SetDefaultsPod, ServiceAccountAlias) {
  struct Case {
    std::string name, spec, account, alias;
  };
  const std::vector<Case> cases = {
      {"name mirrored into the deprecated alias", "  serviceAccountName: build\n", "build",
       "build"},
      {"alias alone fills the name", "  serviceAccount: legacy\n", "legacy", "legacy"},
      {"the name wins over a different alias",
       "  serviceAccountName: build\n  serviceAccount: legacy\n", "build", "build"},
      {"neither", "", "-", "-"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    codec::Node pod = Defaulted(c.spec + "  containers: [{name: a, image: i}]\n");
    const codec::Node* name = pod.FindPath({"spec", "serviceAccountName"});
    const codec::Node* alias = pod.FindPath({"spec", "serviceAccount"});
    EXPECT_EQ(name ? name->scalar : "-", c.account);
    EXPECT_EQ(alias ? alias->scalar : "-", c.alias);
  }
}

TEST(SetDefaultsPod, VolumeSourceDefaults) {
  codec::Node pod = Defaulted(
      "  containers:\n  - name: a\n    image: i\n"
      "    env: [{name: L, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}]\n"
      "  volumes:\n"
      "  - {name: h, hostPath: {path: /data}}\n"
      "  - name: e\n    ephemeral:\n      volumeClaimTemplate:\n        spec:\n"
      "          accessModes: [ReadWriteOnce]\n"
      "          resources: {requests: {storage: 1.5m}}\n"
      "  - name: t\n    projected:\n      sources:\n"
      "      - serviceAccountToken: {path: token}\n"
      "      - downwardAPI: {items: [{path: podname, fieldRef: {fieldPath: metadata.name}}]}\n");
  const codec::Node& vols = *pod.FindPath({"spec"})->Find("volumes");
  EXPECT_EQ(vols.items[0].FindPath({"hostPath", "type"})->scalar, "");
  const codec::Node* claim = vols.items[1].FindPath({"ephemeral", "volumeClaimTemplate", "spec"});
  EXPECT_EQ(claim->Find("volumeMode")->scalar, "Filesystem");
  EXPECT_EQ(claim->FindPath({"resources", "requests", "storage"})->scalar, "2m");
  const codec::Node& sources = *vols.items[2].FindPath({"projected", "sources"});
  EXPECT_EQ(sources.items[0].FindPath({"serviceAccountToken", "expirationSeconds"})->scalar,
            "3600");
  EXPECT_EQ(sources.items[1]
                .Find("downwardAPI")
                ->Find("items")
                ->items[0]
                .FindPath({"fieldRef", "apiVersion"})
                ->scalar,
            "v1");
  const codec::Node& env = pod.FindPath({"spec"})->Find("containers")->items[0].Find("env")->items[0];
  EXPECT_EQ(env.FindPath({"valueFrom", "resourceFieldRef", "divisor"})->scalar, "0");
}

// RoundResourceListToMilli leaves a quantity exact at milli scale as written (the plain forms
// without parsing, the rest after it) and rounds the others up, as the apiserver's defaulting does.
TEST(RoundResourceListToMilli, KeepsExactQuantitiesAndRoundsTheRest) {
  struct Case {
    std::string in, out;
  };
  const Case cases[] = {
      {"500m", "500m"}, {"2", "2"},      {"256Mi", "256Mi"}, {"1k", "1k"},   {"3E", "3E"},
      {"1Ki", "1Ki"},   {"007", "007"},  {"1.5", "1.5"},     {"1e3", "1e3"}, {"0.0015", "2m"},
      {"100u", "1m"},   {"1500n", "1m"}, {"1001u", "2m"},    {"1K", "1K"},   {"1ki", "1ki"},
      {"-5m", "-5m"},   {"+2", "+2"},    {"1Mii", "1Mii"},   {"m", "m"},
  };
  for (const Case& c : cases) {
    codec::Node list = codec::Node::Object();
    list.Set("cpu", codec::Node::String(c.in));
    RoundResourceListToMilli(list);
    EXPECT_EQ(list.Find("cpu")->scalar, c.out) << c.in;
  }
}

}  // namespace
}  // namespace podlimits::api
