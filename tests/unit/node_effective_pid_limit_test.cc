#include <gtest/gtest.h>

#include "kubelet/cm/effective_pid_limit.h"
#include "test_support.h"

namespace podlimits::kubelet {
namespace {

// A decoded, defaulted pod named "web" with `spec` below `spec:` (indented two spaces).
inline api::Pod PodWithSpec(std::string_view spec) {
  std::string yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n";
  yaml += spec;
  return podlimits::testing::DefaultedPod(yaml);
}

constexpr std::string_view kContainers = "  containers: [{name: app, image: busybox}]\n";

api::Pod PodWithPidLimit(std::optional<std::int64_t> pid) {
  std::string spec(kContainers);
  if (pid) spec += "  resources: {limits: {pid: \"" + std::to_string(*pid) + "\"}}\n";
  return PodWithSpec(spec);
}

TEST(NodeEffectivePidLimit, Table) {
  // The expectations of the KEP-6063 kubelet unit tests, plus the podPidsLimit-only rows, and
  // the event a pod whose own limit applies gets (PIDLimitCapped upstream's; PIDLimitApplied
  // podlimits', so that `kubectl describe pod` shows the effective value).
  struct Case {
    const char* name;
    std::int64_t node;
    std::optional<std::int64_t> pod;
    bool gate;
    std::optional<std::int64_t> want;
    const char* event;  // "  Type  Reason  message" as printed; nullptr: no event
    bool applied;
  };
  const Case cases[] = {
      {"pod below node", 4096, 2048, true, 2048,
       "  Normal  PIDLimitApplied  Pod cgroup pids.max set to 2048 from spec.resources.limits.pid "
       "(node podPidsLimit 4096)",
       true},
      {"pod above node is capped", 4096, 8192, true, 4096,
       "  Warning  PIDLimitCapped  Requested PID limit 8192 exceeds node podPidsLimit 4096; "
       "effective limit capped to 4096",
       true},
      {"equal: applied, not capped", 4096, 4096, true, 4096,
       "  Normal  PIDLimitApplied  Pod cgroup pids.max set to 4096 from spec.resources.limits.pid "
       "(node podPidsLimit 4096)",
       true},
      {"node -1: pod limit", -1, 2048, true, 2048,
       "  Normal  PIDLimitApplied  Pod cgroup pids.max set to 2048 from spec.resources.limits.pid "
       "(the node sets no podPidsLimit)",
       true},
      {"node 0: pod limit", 0, 2048, true, 2048,
       "  Normal  PIDLimitApplied  Pod cgroup pids.max set to 2048 from spec.resources.limits.pid "
       "(the node sets no podPidsLimit)",
       true},
      {"no pod limit: node value", 4096, std::nullopt, true, 4096, nullptr, false},
      {"gate off: node value", 4096, 2048, false, 4096, nullptr, false},
      {"gate off, node -1: none", -1, 2048, false, std::nullopt, nullptr, false},
      {"no limits at all: none", -1, std::nullopt, true, std::nullopt, nullptr, false},
      {"node 0, no pod limit: none", 0, std::nullopt, true, std::nullopt, nullptr, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    NodeConfig config = DefaultNodeConfig();
    config.pod_pids_limit = c.node;
    validation::FeatureGates gates;
    gates.per_pod_pid_limit = c.gate;
    EffectivePidLimit got = EffectivePodPidsLimit(PodWithPidLimit(c.pod), config, gates);
    EXPECT_EQ(got.limit, c.want);
    EXPECT_EQ(got.pod_limit_applied, c.applied);
    if (c.event) {
      ASSERT_TRUE(got.event);
      EXPECT_EQ(FormatEventLine(*got.event), c.event);
    } else {
      EXPECT_FALSE(got.event);
    }
  }
}

TEST(NodeEffectivePidLimit, PodPIDLimit) {
  EXPECT_EQ(PodPIDLimit(PodWithPidLimit(std::nullopt)), 0);
  EXPECT_EQ(PodPIDLimit(PodWithPidLimit(2048)), 2048);
  // Other pod-level limits do not count.
  api::Pod cpu_only =
      PodWithSpec(std::string(kContainers) + "  resources: {limits: {cpu: \"1\"}}\n");
  EXPECT_EQ(PodPIDLimit(cpu_only), 0);
}

}  // namespace
}  // namespace podlimits::kubelet
