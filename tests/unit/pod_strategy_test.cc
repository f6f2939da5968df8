// podStrategy.PrepareForCreate: what the stored pod gains before validation.
#include "api/pod_strategy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/defaults.h"
#include "codec/yaml_codec.h"
#include "test_support.h"

namespace podlimits::api {
namespace {

using ::testing::ElementsAre;

struct Prepared {
  codec::Node tree;
  PreparedPod result;
};

Prepared Prepare(std::string_view yaml) {
  Prepared p{podlimits::testing::DecodeOne(yaml).tree, {}};
  SetDefaultNamespace(p.tree);
  SetDefaultsPod(p.tree);
  p.result = PrepareForCreate(p.tree, {});
  return p;
}

TEST(PrepareForCreate, StatusGenerationAndQos) {
  struct Case {
    std::string name, containers, qos;
  };
  const std::vector<Case> cases = {
      {"best effort", "  - {name: a, image: i}\n", "BestEffort"},
      {"guaranteed", "  - {name: a, image: i, resources: {limits: {cpu: 1, memory: 1Gi}}}\n",
       "Guaranteed"},
      {"burstable", "  - {name: a, image: i, resources: {requests: {cpu: 1}}}\n", "Burstable"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = Prepare("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n" +
                     c.containers + "status: {phase: Running, podIP: 10.0.0.1}\n");
    EXPECT_EQ(p.tree.FindPath({"metadata", "generation"})->scalar, "1");
    const codec::Node* status = p.tree.Find("status");
    ASSERT_NE(status, nullptr);
    CanonicalizeOrder(p.tree, "Pod");
    EXPECT_EQ(codec::EncodeYaml(*p.tree.Find("status")), "phase: Pending\nqosClass: " + c.qos + "\n");
  }
}

TEST(PrepareForCreate, PodLevelLimitsOnlyIsGuaranteed) {
  // The pod-level requests default to the limits before the QoS class is computed.
  auto p = Prepare(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  resources: {limits: {cpu: 1, "
      "memory: 1Gi}}\n  containers: [{name: a, image: i}]\n");
  EXPECT_EQ(p.tree.FindPath({"status", "qosClass"})->scalar, "Guaranteed");
}

TEST(PrepareForCreate, SchedulingGatedCondition) {
  auto p = Prepare(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  schedulingGates: [{name: g}]\n"
      "  containers: [{name: a, image: i}]\n");
  CanonicalizeOrder(p.tree, "Pod");
  EXPECT_EQ(codec::EncodeYaml(*p.tree.Find("status")),
            "phase: Pending\nconditions:\n- type: PodScheduled\n  status: \"False\"\n"
            "  lastProbeTime: null\n  reason: SchedulingGated\n"
            "  message: Scheduling is blocked due to non-empty scheduling gates\n"
            "qosClass: BestEffort\n");
}

TEST(PrepareForCreate, AppArmorAnnotationsBecomeFields) {
  const std::string kPrefix = "container.apparmor.security.beta.kubernetes.io/";
  auto p = Prepare(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
      "    " +
      kPrefix +
      "a: localhost/custom\n"
      "    " +
      kPrefix +
      "b: runtime/default\n"
      "    " +
      kPrefix +
      "c: unconfined\n"
      "    " +
      kPrefix +
      "d: bogus\n"
      "    " +
      kPrefix +
      "e: runtime/default\n"
      "spec:\n  securityContext: {appArmorProfile: {type: RuntimeDefault}}\n"
      "  initContainers: [{name: e, image: i}]\n"
      "  containers:\n  - {name: a, image: i}\n  - {name: b, image: i}\n"
      "  - {name: c, image: i, securityContext: {appArmorProfile: {type: Unconfined}}}\n"
      "  - {name: d, image: i}\n");
  const codec::Node& containers = *p.tree.FindPath({"spec"})->Find("containers");
  // a: copied; b and e: the pod-level profile already says so; c: has a field; d: no field.
  EXPECT_EQ(containers.items[0]
                .FindPath({"securityContext", "appArmorProfile", "localhostProfile"})
                ->scalar,
            "custom");
  EXPECT_EQ(containers.items[1].Find("securityContext"), nullptr);
  EXPECT_EQ(containers.items[3].Find("securityContext"), nullptr);
  EXPECT_EQ(p.result.pod.spec.containers[0].security_context->app_armor_profile->type, "Localhost");
  auto warning = [&](const std::string& c) {
    return "metadata.annotations[" + kPrefix + c +
           R"(]: deprecated since v1.30; use the "appArmorProfile" field instead)";
  };
  EXPECT_THAT(p.result.warnings, ElementsAre(warning("a"), warning("d")));
}

TEST(PrepareForCreate, NoAppArmorSkewForWindowsPods) {
  auto p = Prepare(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
      "    container.apparmor.security.beta.kubernetes.io/a: localhost/custom\n"
      "spec:\n  os: {name: windows}\n  containers: [{name: a, image: i}]\n");
  EXPECT_EQ(p.tree.FindPath({"spec"})->Find("containers")->items[0].Find("securityContext"),
            nullptr);
  EXPECT_TRUE(p.result.warnings.empty());
}

}  // namespace
}  // namespace podlimits::api
