#include "validation/feature_gates.h"

#include <gtest/gtest.h>

#include "codec/yaml_codec.h"
#include "test_support.h"
#include "validation/drop_disabled.h"

namespace podlimits::validation {
namespace {

TEST(FeatureGates, DefaultsAreAllOn) {
  auto g = FeatureGates::Parse("");
  ASSERT_TRUE(g);
  EXPECT_TRUE(g->container_ulimits && g->per_pod_pid_limit && g->pod_level_resources &&
              g->cgroup_options);
}

TEST(FeatureGates, Parse) {
  struct Case {
    const char* name;
    const char* spec;
    const char* error;  // nullptr: parses
  };
  const Case cases[] = {
      {"one gate off", "ContainerUlimits=false", nullptr},
      {"spaces and Go bool spellings", " CgroupOptions = F , PerPodPIDLimit=1", nullptr},
      {"unknown gate", "Foo=true", "unrecognized feature gate: Foo"},
      {"bad bool", "CgroupOptions=maybe",
       "invalid value of CgroupOptions=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid "
       "syntax"},
      {"missing value", "CgroupOptions", "missing bool value for CgroupOptions"},
      {"PerPodPIDLimit needs PodLevelResources", "PodLevelResources=false",
       "feature gate PerPodPIDLimit depends on PodLevelResources: PerPodPIDLimit=true requires "
       "PodLevelResources=true"},
      {"both off is consistent", "PodLevelResources=false,PerPodPIDLimit=false", nullptr},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto g = FeatureGates::Parse(c.spec);
    if (c.error) {
      ASSERT_FALSE(g);
      EXPECT_EQ(g.error().Message(), c.error);
    } else {
      EXPECT_TRUE(g) << g.error();
    }
  }
}

TEST(DropDisabledPodFields, GatedFieldsAreDroppedWithAWarning) {
  const char* yaml =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  resources: {limits: {pid: "
      "2048}}\n"
      "  initContainers:\n  - name: i\n    image: i\n    securityContext: {ulimits: [{name: core, "
      "soft: 0, hard: 0}]}\n"
      "  containers:\n  - name: a\n    image: i\n    securityContext:\n"
      "      ulimits: [{name: nofile, soft: 1, hard: 1}]\n      cgroupOptions: {mountMode: "
      "Writable}\n";
  struct Case {
    const char* name;
    const char* gates;
    std::vector<std::string> warnings;
  };
  const Case cases[] = {
      {"all on: nothing dropped", "", {}},
      {"ContainerUlimits off",
       "ContainerUlimits=false",
       {"spec.containers[0].securityContext.ulimits: field dropped because the ContainerUlimits "
        "feature gate is disabled",
        "spec.initContainers[0].securityContext.ulimits: field dropped because the "
        "ContainerUlimits "
        "feature gate is disabled"}},
      {"CgroupOptions off",
       "CgroupOptions=false",
       {"spec.containers[0].securityContext.cgroupOptions: field dropped because the CgroupOptions "
        "feature gate is disabled"}},
      {"PodLevelResources off",
       "PodLevelResources=false,PerPodPIDLimit=false",
       {"spec.resources: field dropped because the PodLevelResources feature gate is disabled"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    codec::Node tree = podlimits::testing::DecodeOne(yaml).tree;
    auto gates = FeatureGates::Parse(c.gates);
    ASSERT_TRUE(gates);
    EXPECT_EQ(DropDisabledPodFields(tree, *gates), c.warnings);
    api::Pod pod = api::ReadPod(tree);
    EXPECT_EQ(pod.spec.containers[0].security_context->ulimits.has_value(),
              gates->container_ulimits);
    EXPECT_EQ(pod.spec.containers[0].security_context->cgroup_options.has_value(),
              gates->cgroup_options);
    EXPECT_EQ(pod.spec.resources.has_value(), gates->pod_level_resources);
  }
}

}  // namespace
}  // namespace podlimits::validation
