// `podlimits nri`'s answers to NRI's Plugin service, without a socket or a runtime: a node
// described by hand (NodeFacts), its cgroup tree in a temporary directory, the calls built as a
// runtime sends them. The same pods as podlimits-runc's plan tests, the same decisions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nri/nri_messages.h"
#include "nri/nri_plugin.h"
#include "nri/ttrpc_wire.h"
#include "temp_dir.h"
#include "test_support.h"

namespace podlimits::nri {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr const char* kUlimits = "ulimits.noderesource.dev/container.app";
constexpr const char* kPidLimit = "podlimits.dev/pod-pid-limit";
constexpr const char* kWritable = "podlimits.dev/writable-cgroups.container.app";
constexpr std::uint64_t kInf = ~std::uint64_t{0};

class NriPluginTest : public ::testing::Test {
 protected:
  NriPluginTest() : tmp_("nri-plugin") {
    tmp_.Write("kubepods/podu1/pids.max", "4096\n");
    tmp_.Write("kubepods/podu1/cgroup.max.descendants", "max\n");
    tmp_.Write("kubepods/podu1/cgroup.max.depth", "max\n");
    node_.cgroup_mode = cgroups::CgroupMode::kV2;
    node_.nsdelegate = true;
    node_.unified_root = tmp_.path();
    node_.rlimits.cap_sys_resource = false;
    node_.rlimits.hard_limits = {{"nofile", 524288}, {"core", kInf}, {"memlock", 8u << 20}};
    node_.rlimits.nr_open = 1048576;
    // What a real probe (runcwrap::ProbeNodeFacts) says; the plugin names itself in refusals.
    node_.rlimits.rlimit_holder = kubelet::RlimitHolder::kRuncWrapper;
  }

  NriPlugin Plugin(NriConfig config = {}) {
    NriPluginSeams seams;
    seams.probe_node = [this](const runcwrap::BundleRequest&) { return node_; };
    seams.read_back = [this](std::uint32_t pid, const std::vector<PosixRlimit>& wanted)
        -> Result<std::vector<std::string>> {
      read_back_.emplace_back(pid, wanted);
      return std::vector<std::string>{};
    };
    config.limits.source = "/etc/podlimits/nri.yaml";
    return NriPlugin(std::move(config), std::move(seams),
                     [this](std::string_view level, std::string_view m) {
                       log_.push_back(std::string(level) + ": " + std::string(m));
                     });
  }

  static PodSandbox Pod(StringMap annotations) {
    PodSandbox pod;
    pod.id = "sb1";
    pod.name = "web";
    pod.pod_namespace = "default";
    pod.uid = "u1";
    pod.cgroup_parent = "/kubepods/podu1";
    pod.annotations = std::move(annotations);
    return pod;
  }
  static Container App(bool cgroup_namespace = true) {
    Container c;
    c.id = "c1";
    c.pod_sandbox_id = "sb1";
    c.name = "app";
    c.cgroups_path = "/kubepods/podu1/c1";
    c.namespaces = {{"pid", ""}, {"mount", ""}};
    if (cgroup_namespace) c.namespaces.push_back({"cgroup", ""});
    return c;
  }
  static TtrpcRequest Call(std::string method, std::string payload) {
    return {std::string(kPluginService), std::move(method), std::move(payload), 0};
  }

  podlimits::testing::TempDir tmp_;
  runcwrap::NodeFacts node_;
  std::vector<std::string> log_;
  std::vector<std::pair<std::uint32_t, std::vector<PosixRlimit>>> read_back_;
};

TEST_F(NriPluginTest, ConfigureSubscribesAndUnknownCallsAreUnimplemented) {
  NriPlugin plugin = Plugin();
  auto configured = plugin.Handle(Call("Configure", ""));
  EXPECT_EQ(configured.code, kCodeOk);
  // RUN_POD_SANDBOX 1, REMOVE_POD_SANDBOX 3, CREATE_CONTAINER 4, POST_START_CONTAINER 7,
  // REMOVE_CONTAINER 11: bits 0, 2, 3, 6 and 10.
  EXPECT_EQ(configured.payload, EncodeConfigureResponse(0x1 | 0x4 | 0x8 | 0x40 | 0x400));
  EXPECT_TRUE(plugin.Configured());

  struct Case {
    const char* name;
    TtrpcRequest request;
    int code;
    const char* message;
  } cases[] = {
      {"unknown method", Call("ValidateContainerAdjustment", ""), kCodeUnimplemented,
       "method ValidateContainerAdjustment"},
      {"the Runtime service", {"nri.pkg.api.v1alpha1.Runtime", "RegisterPlugin", "", 0},
       kCodeUnimplemented, "service nri.pkg.api.v1alpha1.Runtime"},
      {"a truncated CreateContainer", Call("CreateContainer", std::string("\x0a\x05\x0a", 3)),
       kCodeInvalidArgument, "malformed NRI container request: field 1 is truncated"},
      {"a StateChange without a pod", Call("StateChange", std::string("\x08\x01", 2)),
       kCodeInvalidArgument, "NRI StateChangeEvent without a pod"},
  };
  for (const auto& c : cases) {
    auto r = plugin.Handle(c.request);
    EXPECT_EQ(r.code, c.code) << c.name;
    EXPECT_EQ(r.message, c.message) << c.name;
  }
  auto sync = plugin.Handle(Call("Synchronize", std::string("\x18\x01", 2)));  // more: true
  EXPECT_EQ(sync.code, kCodeOk);
  EXPECT_EQ(sync.payload, EncodeSynchronizeResponse(true));
  EXPECT_EQ(plugin.Handle(Call("Shutdown", "")).code, kCodeOk);
  EXPECT_TRUE(plugin.ShutdownRequested());
}

TEST_F(NriPluginTest, CreateContainerAdjustments) {
  struct Case {
    const char* name;
    StringMap annotations;
    std::vector<api::Ulimit> defaults;
    bool cgroup_namespace;
    std::vector<PosixRlimit> rlimits;  // expected
    bool writable_mount;
    const char* refusal;  // nullptr: allowed
  } cases[] = {
      {"no annotations: untouched", {}, {}, true, {}, false, nullptr},
      {"ulimits, -1 within the node's ceilings",
       {{kUlimits, "[{type: nofile, soft: 1024, hard: -1}, {type: core, soft: -1, hard: -1}]"}},
       {}, true,
       {{"RLIMIT_NOFILE", 524288, 1024}, {"RLIMIT_CORE", kInf, kInf}}, false, nullptr},
      {"defaults for what the pod leaves out",
       {{kUlimits, "[{type: nofile, soft: 100, hard: 200}]"}},
       {{"nofile", 65536, 65536}, {"core", 0, 0}}, true,
       {{"RLIMIT_NOFILE", 200, 100}, {"RLIMIT_CORE", 0, 0}}, false, nullptr},
      {"defaults without annotations", {}, {{"nofile", 65536, 65536}}, true,
       {{"RLIMIT_NOFILE", 65536, 65536}}, false, nullptr},
      {"above the ceiling",
       {{kUlimits, "[{type: nofile, soft: 1, hard: 600000}]"}}, {}, true, {}, false,
       "container \"app\" of pod default/web: spec.containers[0].securityContext.ulimits[0].hard: "
       "container \"app\" asks nofile 600000, above this node's ceiling 524288: this node "
       "cannot raise a hard rlimit above its own: the NRI plugin (podlimits nri) lacks "
       "CAP_SYS_RESOURCE"},
      {"an annotation the webhook would reject",
       {{kUlimits, "[{type: nofile, soft: 10, hard: 5}]"}}, {}, true, {}, false,
       "container \"app\" of pod default/web: "
       "metadata.annotations[ulimits.noderesource.dev/container.app]: "
       "securityContext.ulimits[0].soft: Invalid value: 10: must be less than or equal to hard "
       "limit 5"},
      {"writable with a cgroup namespace", {{kWritable, "true"}}, {}, true, {}, true, nullptr},
      {"writable without one", {{kWritable, "true"}}, {}, false, {}, false,
       "container \"app\" of pod default/web: CgroupOptions.MountMode=Writable needs a cgroup "
       "namespace of the container's own"},
  };
  for (const auto& c : cases) {
    NriConfig config;
    config.limits.default_ulimits = c.defaults;
    NriPlugin plugin = Plugin(config);
    auto r = plugin.Handle(Call("CreateContainer",
                                EncodeContainerRequest(Pod(c.annotations), App(c.cgroup_namespace))));
    if (c.refusal != nullptr) {
      EXPECT_EQ(r.code, kCodeFailedPrecondition) << c.name;
      EXPECT_THAT(r.message, HasSubstr(c.refusal)) << c.name;
      continue;
    }
    ASSERT_EQ(r.code, kCodeOk) << c.name << ": " << r.message;
    auto adjust = DecodeCreateContainerResponse(r.payload);
    ASSERT_TRUE(adjust) << c.name;
    EXPECT_EQ(adjust->rlimits, c.rlimits) << c.name;
    if (c.writable_mount) {
      EXPECT_THAT(adjust->mounts, ElementsAre(Mount{"/sys/fs/cgroup", "cgroup", "cgroup",
                                                    {"nosuid", "noexec", "nodev", "relatime", "rw"}}))
          << c.name;
      EXPECT_EQ(podlimits::testing::ReadText(tmp_.path() / "kubepods/podu1/cgroup.max.depth"),
                "50");
    } else {
      EXPECT_THAT(adjust->mounts, IsEmpty()) << c.name;
    }
  }
}

TEST_F(NriPluginTest, RunPodSandboxLowersThePodCgroup) {
  NriPlugin plugin = Plugin();
  auto run = [&](StringMap annotations) {
    PodSandbox pod = Pod(std::move(annotations));
    return plugin.Handle(
        Call("StateChange", EncodeStateChangeEvent(Event::kRunPodSandbox, pod, nullptr)));
  };
  auto ok = run({{kPidLimit, "2048"}, {kWritable, "true"}});
  ASSERT_EQ(ok.code, kCodeOk) << ok.message;
  EXPECT_EQ(podlimits::testing::ReadText(tmp_.path() / "kubepods/podu1/pids.max"), "2048");
  EXPECT_EQ(podlimits::testing::ReadText(tmp_.path() / "kubepods/podu1/cgroup.max.descendants"),
            "250");
  // Above the node's podPidsLimit (what the kubelet wrote, now 2048): never raised.
  ASSERT_EQ(run({{kPidLimit, "8192"}}).code, kCodeOk);
  EXPECT_EQ(podlimits::testing::ReadText(tmp_.path() / "kubepods/podu1/pids.max"), "2048");

}

// What the node cannot honour is logged at RunPodSandbox, which succeeds (containerd 2.x would
// leak a sandbox it fails), and refused at each container with the same message.
TEST_F(NriPluginTest, ASandboxRefusalFailsItsContainers) {
  struct Case {
    const char* name;
    StringMap annotations;
    bool hybrid;
    const char* refusal;
  } cases[] = {
      {"a pod PID limit below the KEP's range", {{kPidLimit, "100"}}, false,
       "metadata.annotations[podlimits.dev/pod-pid-limit]: "},
      {"a pod PID limit on cgroup v1", {{kPidLimit, "2048"}}, true,
       "per-pod PID limit requires cgroupsv2, but this node is running cgroupsv1; pod web "
       "specifies spec.resources.limits.pid"},
      {"a writable cgroup on cgroup v1", {{kWritable, "true"}}, true,
       "CgroupOptions.MountMode=Writable requires cgroup v2"},
  };
  for (const auto& c : cases) {
    node_.cgroup_mode = c.hybrid ? cgroups::CgroupMode::kHybrid : cgroups::CgroupMode::kV2;
    log_.clear();
    NriPlugin plugin = Plugin();
    PodSandbox pod = Pod(c.annotations);
    auto sandbox = plugin.Handle(
        Call("StateChange", EncodeStateChangeEvent(Event::kRunPodSandbox, pod, nullptr)));
    EXPECT_EQ(sandbox.code, kCodeOk) << c.name << ": " << sandbox.message;
    ASSERT_EQ(log_.size(), 1u) << c.name;
    EXPECT_THAT(log_[0], HasSubstr(c.refusal)) << c.name;
    EXPECT_THAT(log_[0], HasSubstr("(its containers are refused)")) << c.name;
    auto create = plugin.Handle(Call("CreateContainer", EncodeContainerRequest(pod, App())));
    EXPECT_EQ(create.code, kCodeFailedPrecondition) << c.name;
    EXPECT_THAT(create.message, HasSubstr(c.refusal)) << c.name;
  }
}

TEST_F(NriPluginTest, APodCgroupThatVanishedFailsTheContainer) {
  NriPlugin plugin = Plugin();
  PodSandbox pod = Pod({{kPidLimit, "2048"}});
  ASSERT_EQ(plugin.Handle(Call("StateChange",
                               EncodeStateChangeEvent(Event::kRunPodSandbox, pod, nullptr)))
                .code,
            kCodeOk);
  std::filesystem::remove_all(tmp_.path() / "kubepods/podu1");
  auto r = plugin.Handle(Call("CreateContainer", EncodeContainerRequest(pod, App())));
  EXPECT_EQ(r.code, kCodeFailedPrecondition);
  EXPECT_THAT(r.message, HasSubstr("container \"app\" of pod default/web: "));
  EXPECT_THAT(r.message, HasSubstr("the pod cgroup must exist before its sandbox"));
}

TEST_F(NriPluginTest, PostStartReadsBackWhatWasGranted) {
  NriPlugin plugin = Plugin();
  PodSandbox pod = Pod({{kUlimits, "[{type: core, soft: 0, hard: 0}]"}});
  Container app = App();
  ASSERT_EQ(plugin.Handle(Call("CreateContainer", EncodeContainerRequest(pod, app))).code, kCodeOk);
  app.pid = 4242;
  plugin.Handle(Call("StateChange", EncodeStateChangeEvent(Event::kPostStartContainer, pod, &app)));
  ASSERT_EQ(read_back_.size(), 1u);
  EXPECT_EQ(read_back_[0].first, 4242u);
  EXPECT_THAT(read_back_[0].second, ElementsAre(PosixRlimit{"RLIMIT_CORE", 0, 0}));
  // Removed: nothing left to read back.
  plugin.Handle(Call("StateChange", EncodeStateChangeEvent(Event::kRemoveContainer, pod, &app)));
  plugin.Handle(Call("StateChange", EncodeStateChangeEvent(Event::kPostStartContainer, pod, &app)));
  EXPECT_EQ(read_back_.size(), 1u);
}

}  // namespace
}  // namespace podlimits::nri
