#include "kubelet/plan/pod_plan.h"

#include <gtest/gtest.h>

#include <regex>

#include "base/uuid.h"
#include "kubelet/lifecycle/declared_features.h"
#include "kubelet/lifecycle/node_admission.h"
#include "test_support.h"

namespace podlimits::kubelet {
namespace {

api::Pod PodWithSpec(std::string_view spec, std::string_view meta = "{name: web}") {
  std::string yaml = "apiVersion: v1\nkind: Pod\nmetadata: " + std::string(meta) + "\nspec:\n";
  yaml += spec;
  return podlimits::testing::DefaultedPod(yaml);
}

NodeCapabilities V2Caps() {
  NodeCapabilities caps;
  caps.cgroup_mode = cgroups::CgroupMode::kV2;
  caps.nsdelegate = true;
  caps.pids_controller = true;
  caps.runtime.name = "crun";
  caps.runtime.path = "/usr/bin/crun";
  caps.runtime.applies_rlimits = true;
  caps.runtime.supports_writable_cgroups = true;
  caps.cap_sys_resource = true;
  caps.nr_open = 1048576;
  return caps;
}

PodPlan Plan(const api::Pod& pod, NodeConfig config = DefaultNodeConfig(),
             std::optional<std::int64_t> capacity = 4194304) {
  NodeCapabilities caps = V2Caps();
  auto features = DeclareFeatures(config.feature_gates, caps);
  AdmitResult admit = AdmitPod(pod, features, caps);
  EXPECT_TRUE(admit.admitted) << admit.message;
  return PlanPod(pod, config, admit, config.feature_gates, capacity);
}

TEST(PodPlan, RlimitType) {
  EXPECT_EQ(RlimitType("nofile"), "RLIMIT_NOFILE");
  EXPECT_EQ(RlimitType("rtprio"), "RLIMIT_RTPRIO");
}

TEST(PodPlan, IdsAreFreshAndWellFormed) {
  std::regex uuid("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  std::string a = NewUuid(), b = NewUuid();
  EXPECT_TRUE(std::regex_match(a, uuid)) << a;
  EXPECT_NE(a, b);
  std::regex hex64("[0-9a-f]{64}");
  EXPECT_TRUE(std::regex_match(NewContainerId(), hex64));
}

TEST(PodPlan, UidFromMetadataOrNew) {
  auto with = Plan(PodWithSpec("  containers: [{name: app, image: busybox}]\n",
                               "{name: web, uid: 11111111-2222-4333-8444-555555555555}"));
  EXPECT_EQ(with.uid, "11111111-2222-4333-8444-555555555555");
  auto without = Plan(PodWithSpec("  containers: [{name: app, image: busybox}]\n"));
  EXPECT_EQ(without.uid.size(), 36u);
  EXPECT_EQ(without.PodDescription(), "web_default(" + without.uid + ")");
}

TEST(PodPlan, Table) {
  struct Case {
    const char* name;
    std::string spec;
    std::int64_t pod_pids_limit;  // node podPidsLimit
    cgroups::QosClass qos;
    std::optional<std::int64_t> pids_max;
    bool writable;
    std::string restart_policy;
    std::int64_t grace;
  };
  const Case cases[] = {
      {"besteffort, no limits", "  containers: [{name: app, image: busybox}]\n", -1,
       cgroups::QosClass::kBestEffort, std::nullopt, false, "Always", 30},
      {"node podPidsLimit", "  containers: [{name: app, image: busybox}]\n", 4096,
       cgroups::QosClass::kBestEffort, 4096, false, "Always", 30},
      {"pod limit below node",
       "  containers: [{name: app, image: busybox}]\n"
       "  resources: {limits: {pid: \"2048\"}}\n",
       4096, cgroups::QosClass::kBestEffort, 2048, false, "Always", 30},
      {"guaranteed",
       "  containers: [{name: app, image: busybox, resources: {limits: {cpu: 1, "
       "memory: 1Gi}}}]\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 3\n",
       -1, cgroups::QosClass::kGuaranteed, std::nullopt, false, "Never", 3},
      {"writable container",
       "  containers: [{name: app, image: busybox, securityContext: "
       "{cgroupOptions: {mountMode: Writable}}}]\n",
       -1, cgroups::QosClass::kBestEffort, std::nullopt, true, "Always", 30},
      // The kubelet's minimumGracePeriodInSeconds: never an immediate SIGKILL.
      {"grace period 0 is the kubelet's minimum",
       "  containers: [{name: app, image: busybox}]\n  terminationGracePeriodSeconds: 0\n", -1,
       cgroups::QosClass::kBestEffort, std::nullopt, false, "Always", 2},
      {"grace period 1 is the kubelet's minimum",
       "  containers: [{name: app, image: busybox}]\n  terminationGracePeriodSeconds: 1\n", -1,
       cgroups::QosClass::kBestEffort, std::nullopt, false, "Always", 2},
      {"grace period 2 stays",
       "  containers: [{name: app, image: busybox}]\n  terminationGracePeriodSeconds: 2\n", -1,
       cgroups::QosClass::kBestEffort, std::nullopt, false, "Always", 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    NodeConfig config = DefaultNodeConfig();
    config.pod_pids_limit = c.pod_pids_limit;
    PodPlan plan = Plan(PodWithSpec(c.spec), config);
    EXPECT_EQ(plan.qos, c.qos);
    EXPECT_EQ(plan.cgroup.qos, c.qos);
    EXPECT_EQ(plan.cgroup.pod_uid, plan.uid);
    EXPECT_EQ(plan.cgroup.pod_pids_max, c.pids_max);
    EXPECT_EQ(plan.cgroup.writable.has_value(), c.writable);
    if (c.writable) {
      EXPECT_EQ(plan.cgroup.writable->max_descendants, 250);
      EXPECT_EQ(plan.cgroup.writable->max_depth, 50);
      EXPECT_TRUE(plan.containers[0].writable_cgroup);
    }
    EXPECT_EQ(plan.cgroup.kubepods_pids_max, 4194304);  // capacity, nothing reserved
    EXPECT_EQ(plan.restart_policy, c.restart_policy);
    EXPECT_EQ(plan.grace_period_seconds, c.grace);
    EXPECT_EQ(plan.pod_dir, "/run/podlimits/pods/" + plan.uid);
  }
}

TEST(PodPlan, GrantedUlimitsBecomeRlimitsInOrder) {
  PodPlan plan =
      Plan(PodWithSpec("  initContainers: [{name: setup, image: busybox}]\n"
                       "  containers:\n"
                       "  - name: app\n    image: busybox\n    securityContext:\n      ulimits:\n"
                       "      - {name: nofile, soft: 256, hard: 512}\n"
                       "      - {name: core, soft: -1, hard: -1}\n"));
  constexpr auto kInf = ~std::uint64_t{0};
  ASSERT_EQ(plan.init_containers.size(), 1u);
  // No ulimits: what containerd's unit gives every container (default_rlimits.h).
  EXPECT_EQ(plan.init_containers[0].rlimits,
            (std::vector<cri::Rlimit>{{"RLIMIT_NOFILE", 1048576, 1048576},
                                      {"RLIMIT_NPROC", kInf, kInf},
                                      {"RLIMIT_CORE", kInf, kInf}}));
  ASSERT_EQ(plan.containers.size(), 1u);
  const auto& r = plan.containers[0].rlimits;
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], (cri::Rlimit{"RLIMIT_NOFILE", 256, 512}));
  // -1 with CAP_SYS_RESOURCE: RLIM_INFINITY.
  EXPECT_EQ(r[1], (cri::Rlimit{"RLIMIT_CORE", kInf, kInf}));
  EXPECT_EQ(r[2], (cri::Rlimit{"RLIMIT_NPROC", kInf, kInf}));
  EXPECT_NE(plan.init_containers[0].id, plan.containers[0].id);
}

}  // namespace
}  // namespace podlimits::kubelet
