// cpu and memory as the kubelet maps them to cgroup v2 files.
#include "kubelet/cm/resource_config.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace podlimits::kubelet {
namespace {

using Files = std::map<std::string, std::string>;

api::Pod PodWith(const std::string& containers) {
  return testing::DefaultedPod("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                               "  containers:\n" + containers);
}

TEST(ResourceConfig, Conversions) {
  EXPECT_EQ(MilliCpuToShares(0), 2u);
  EXPECT_EQ(MilliCpuToShares(1), 2u);
  EXPECT_EQ(MilliCpuToShares(250), 256u);
  EXPECT_EQ(MilliCpuToShares(1000), 1024u);
  EXPECT_EQ(MilliCpuToShares(1000000), 262144u);
  EXPECT_EQ(SharesToWeight(2), 1u);
  EXPECT_EQ(SharesToWeight(1024), 39u);
  EXPECT_EQ(SharesToWeight(262144), 10000u);
  EXPECT_EQ(MilliCpuToQuota(0), 0);
  EXPECT_EQ(MilliCpuToQuota(5), 1000);  // at least 1 ms per period
  EXPECT_EQ(MilliCpuToQuota(250), 25000);
}

// The QoS parents: besteffort at the minimum, burstable from the node's Burstable total, nothing
// for Guaranteed (its pods sit in kubepods), kubepods from allocatable.
TEST(ResourceConfig, QosParents) {
  EXPECT_EQ(QosResourceFiles(cgroups::QosClass::kBestEffort, 0), (Files{{"cpu.weight", "1"}}));
  EXPECT_EQ(QosResourceFiles(cgroups::QosClass::kBurstable, 350), (Files{{"cpu.weight", "14"}}));
  EXPECT_EQ(QosResourceFiles(cgroups::QosClass::kBurstable, 0), (Files{{"cpu.weight", "1"}}));
  EXPECT_EQ(QosResourceFiles(cgroups::QosClass::kGuaranteed, 2000), Files{});
  EXPECT_EQ(KubepodsResourceFiles(2000, 1 << 30),
            (Files{{"cpu.weight", "79"}, {"memory.max", "1073741824"}}));
  EXPECT_EQ(PodCpuRequestMilli(PodWith("  - {name: a, image: i, resources: {requests: {cpu: "
                                       "250m}}}\n  - {name: b, image: i, resources: {limits: "
                                       "{cpu: 100m}}}\n")),
            350);
}

TEST(ResourceConfig, PodAndContainerFiles) {
  struct Case {
    const char* name;
    std::string containers;
    Files pod;
    Files first_container;
  };
  const Case cases[] = {
      {"BestEffort: the minimum weight, no limits",
       "  - {name: a, image: i}\n",
       {{"cpu.weight", "1"}},
       {{"cpu.weight", "1"}, {"cpu.max", "max 100000"}}},
      {"Guaranteed: every limit, summed",
       "  - {name: a, image: i, resources: {limits: {cpu: 500m, memory: 64Mi}}}\n"
       "  - {name: b, image: i, resources: {limits: {cpu: 500m, memory: 64Mi}}}\n",
       {{"cpu.weight", "39"}, {"cpu.max", "100000 100000"}, {"memory.max", "134217728"}},
       {{"cpu.weight", "20"},
        {"cpu.max", "50000 100000"},
        {"memory.max", "67108864"},
        {"memory.swap.max", "0"}}},
      {"Burstable: a limit only when every container declares it",
       "  - {name: a, image: i, resources: {requests: {cpu: 100m}, limits: {memory: 32Mi}}}\n"
       "  - {name: b, image: i, resources: {requests: {cpu: 100m}}}\n",
       {{"cpu.weight", "8"}},
       {{"cpu.weight", "4"},
        {"cpu.max", "max 100000"},
        {"memory.max", "33554432"},
        {"memory.swap.max", "0"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    api::Pod pod = PodWith(c.containers);
    EXPECT_EQ(PodResourceFiles(pod), c.pod);
    EXPECT_EQ(ContainerResourceFiles(pod.spec.containers[0]), c.first_container);
  }
}

}  // namespace
}  // namespace podlimits::kubelet
