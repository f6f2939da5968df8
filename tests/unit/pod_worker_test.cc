// The pod worker's state machine (kubelet/podworker/pod_runner.h) over a fake runtime whose containers are
// real child processes running a script: restart policies and back-off, init containers,
// sidecars, StartError, stop requests, grace and SIGKILL escalation, two pods at once, probes and
// hooks, and each runtime or cgroup step failing in turn.
// Unprivileged, on any machine: the cgroups are plain directories, nothing is mounted.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cgroups/hierarchies.h"
#include "cgroups/tree.h"
#include "fake_runtime.h"
#include "image/store.h"
#include "image_test_support.h"
#include "cri/container_output.h"
#include "kubelet/lifecycle/declared_features.h"
#include "kubelet/lifecycle/node_admission.h"
#include "kubelet/plan/pod_plan.h"
#include "kubelet/podworker/pod_runner.h"
#include "kubelet/podworker/pod_spec_update.h"
#include "kubelet/podworker/stale_pods.h"
#include "temp_dir.h"
#include "test_support.h"

namespace podlimits::kubelet {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using podlimits::testing::FakeHolder;
using podlimits::testing::FakeRun;
using podlimits::testing::FakeRuntime;
using podlimits::testing::PlainSnapshotter;
using podlimits::testing::TempDir;

// The lines each container wrote, by container, in order.
class CapturedOutput : public cri::ContainerOutput {
 public:
  std::unique_ptr<cri::OutputSink> Open(std::string_view container, int, cri::OutputStream) override {
    return std::make_unique<Sink>(this, std::string(container));
  }
  std::string Of(const std::string& container) {
    std::lock_guard lock(mu_);
    return text_[container];
  }

 private:
  struct Sink : cri::OutputSink {
    Sink(CapturedOutput* o, std::string n) : owner(o), name(std::move(n)) {}
    void Feed(std::string_view data) override {
      std::lock_guard lock(owner->mu_);
      owner->text_[name] += data;
    }
    void Finish() override {}
    CapturedOutput* owner;
    std::string name;
  };
  std::mutex mu_;
  std::map<std::string, std::string> text_;
};

// A node on a scratch directory: an image store with one image, a v1 pids hierarchy of plain
// directories, a state directory.
class FakeNode {
 public:
  FakeNode() {
    namespace it = podlimits::image_testing;
    std::vector<it::Layer> layers = {
        it::MakeLayer({it::TarEntry::File("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")})};
    layout_ = it::WriteOciLayout(dir_ / "layout", layers, it::ConfigJson(layers));
    store_ = std::make_unique<image::ImageStore>(dir_ / "images");
    LoadImage("busybox:latest");
    fs::create_directories(dir_ / "cgroup");
    fs::create_directories(dir_ / "state" / "pods");  // the claim (pod_claim.h) makes it on a node
  }

  PodPlan Plan(const std::string& yaml_spec, const std::string& name = "web") {
    api::Pod pod = podlimits::testing::DefaultedPod(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "}\nspec:\n" + yaml_spec);
    NodeConfig config = DefaultNodeConfig();
    config.state_directory = (dir_ / "state").string();
    NodeCapabilities caps;
    caps.cgroup_mode = cgroups::CgroupMode::kV1;
    caps.pids_controller = true;
    caps.runtime.name = "crun";
    caps.runtime.path = "/fake/runtime";
    // This process's own hard limits are the ceilings: the fake containers are its children.
    for (auto [name, resource] : {std::pair{"nofile", RLIMIT_NOFILE}, std::pair{"nproc", RLIMIT_NPROC},
                                  std::pair{"core", RLIMIT_CORE}}) {
      struct rlimit rl {};
      getrlimit(resource, &rl);
      caps.hard_limits[name] = rl.rlim_max == RLIM_INFINITY ? kRlimInfinity : rl.rlim_max;
    }
    AdmitResult admit = AdmitPod(pod, DeclareFeatures(config.feature_gates, caps), caps);
    EXPECT_TRUE(admit.admitted) << admit.message;
    PodPlan plan = PlanPod(pod, config, admit, config.feature_gates, 4194304);
    plan.grace_period_seconds = 1;
    auto names = MakePodNameResolution(pod, config.dns, {}, plan.PodDescription());
    EXPECT_TRUE(names) << names.error();
    if (names) {
      plan.hostnames = std::move(names->names);
      plan.etc_files = std::move(names->files);
    }
    return plan;
  }

  PodRunEnvironment Env(FakeRuntime& runtime, EventRecorder& events, cri::ContainerOutput& output,
                        PodStop* stop = nullptr) {
    PodRunEnvironment env;
    env.runtime = &runtime;
    env.snapshotter = &snapshotter_;
    env.images = store_.get();
    env.hierarchies.push_back(
        {cgroups::CgroupVersion::kV1,
         {"pids"},
         cgroups::CgroupTree::OnPlainDirectory(dir_ / "cgroup", {{"cgroup.procs", ""},
                                                                 {"pids.current", "0\n"},
                                                                 {"pids.events", "max 0\n"},
                                                                 {"pids.max", "max\n"}})});
    env.state_dir = dir_ / "state";
    env.events = &events;
    env.metrics = &metrics_;
    env.output = &output;
    env.stop = stop;
    env.backoff = {20ms, 80ms, 10min};
    env.start_holder = holder_.Starter();
    return env;
  }

  const fs::path& dir() const { return dir_.path(); }
  // The test image under another name, as `podlimits image load` would put it in the store.
  void LoadImage(const std::string& name) {
    auto loaded = store_->Load(layout_, name);
    EXPECT_TRUE(loaded) << loaded.error();
  }

 private:
  TempDir dir_{"podlimits-worker"};
  fs::path layout_;
  std::unique_ptr<image::ImageStore> store_;
  PlainSnapshotter snapshotter_;
  MetricsRegistry metrics_;

 public:
  FakeHolder holder_;
};

const ContainerRunResult* Find(const PodRunResult& r, const std::string& name) {
  for (const auto& c : r.containers) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::vector<std::string> Reasons(const EventRecorder& events) {
  std::vector<std::string> out;
  for (const auto& e : events.Events()) out.push_back(e.reason);
  return out;
}

struct ContainerWant {
  std::string name;
  int exit_code;
  std::string reason;
  int restarts;
};

struct Case {
  const char* name;
  std::string spec;
  std::map<std::string, std::vector<FakeRun>> scripts;
  std::string phase;
  std::vector<ContainerWant> want;
  std::vector<std::string> creates;  // the order containers were created in
};

TEST(PodWorker, RestartPoliciesAndContainerOrder) {
  const Case cases[] = {
      {"Never: a clean exit succeeds",
       "  restartPolicy: Never\n  containers: [{name: app, image: busybox}]\n",
       {{"app", {{.exit_code = 0}}}},
       "Succeeded",
       {{"app", 0, "Completed", 0}},
       {"app"}},
      {"Never: a failed exit fails the pod",
       "  restartPolicy: Never\n  containers: [{name: app, image: busybox}]\n",
       {{"app", {{.exit_code = 3}}}},
       "Failed",
       {{"app", 3, "Error", 0}},
       {"app"}},
      {"OnFailure: restarted until it exits 0",
       "  restartPolicy: OnFailure\n  containers: [{name: app, image: busybox}]\n",
       {{"app", {{.exit_code = 1}, {.exit_code = 2}, {.exit_code = 0}}}},
       "Succeeded",
       {{"app", 0, "Completed", 2}},
       {"app", "app", "app"}},
      {"StartError: exit code 128, restartPolicy Never fails the pod",
       "  restartPolicy: Never\n  containers: [{name: app, image: busybox}]\n",
       {{"app", {{.start_refused = true}}}},
       "Failed",
       {{"app", 128, "StartError", 0}},
       {"app"}},
      {"StartError is retried under OnFailure",
       "  restartPolicy: OnFailure\n  containers: [{name: app, image: busybox}]\n",
       {{"app", {{.start_refused = true}, {.exit_code = 0}}}},
       "Succeeded",
       {{"app", 0, "Completed", 1}},
       {"app", "app"}},
      {"init containers one at a time, then the app containers in order",
       "  restartPolicy: Never\n"
       "  initContainers: [{name: i1, image: busybox}, {name: i2, image: busybox}]\n"
       "  containers: [{name: a1, image: busybox}, {name: a2, image: busybox}]\n",
       {{"i1", {{.runs_for = 30ms}}}},
       "Succeeded",
       {{"i1", 0, "Completed", 0}, {"i2", 0, "Completed", 0}, {"a1", 0, "Completed", 0}},
       {"i1", "i2", "a1", "a2"}},
      {"a failed init container under Never: no app container starts",
       "  restartPolicy: Never\n"
       "  initContainers: [{name: init, image: busybox}]\n"
       "  containers: [{name: app, image: busybox}]\n",
       {{"init", {{.exit_code = 1}}}},
       "Failed",
       {{"init", 1, "Error", 0}},
       {"init"}},
      {"a failed init container is retried under OnFailure",
       "  restartPolicy: OnFailure\n"
       "  initContainers: [{name: init, image: busybox}]\n"
       "  containers: [{name: app, image: busybox}]\n",
       {{"init", {{.exit_code = 1}, {.exit_code = 0}}}},
       "Succeeded",
       {{"init", 0, "Completed", 1}, {"app", 0, "Completed", 0}},
       {"init", "init", "app"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeNode node;
    FakeRuntime runtime;
    for (const auto& [name, runs] : c.scripts) runtime.Script(name, runs);
    EventRecorder events;
    CapturedOutput output;
    PodPlan plan = node.Plan(c.spec);
    PodRunEnvironment env = node.Env(runtime, events, output);
    PodRunResult r = RunPod(plan, env);
    EXPECT_FALSE(r.node_failure) << r.failure;
    EXPECT_TRUE(r.teardown_errors.empty());
    EXPECT_EQ(r.phase, c.phase);
    for (const auto& w : c.want) {
      const ContainerRunResult* got = Find(r, w.name);
      ASSERT_NE(got, nullptr) << w.name;
      EXPECT_EQ(got->exit_code, w.exit_code) << w.name;
      EXPECT_EQ(got->reason, w.reason) << w.name;
      EXPECT_EQ(got->restarts, w.restarts) << w.name;
    }
    std::vector<std::string> creates;
    for (const auto& call : runtime.Calls()) {
      if (call.starts_with("create ")) creates.push_back(call.substr(7));
    }
    EXPECT_EQ(creates, c.creates);
    // Everything the pod had on the node is gone.
    EXPECT_FALSE(fs::exists(plan.pod_dir));
  }
}

// The sandbox's holder starts once the pod cgroup exists, in a cgroup of its own below it and
// before any container; it is killed and reaped when the pod ends.
TEST(PodWorker, SandboxHolderComesFirstAndIsReaped) {
  FakeNode node;
  FakeRuntime runtime;
  std::vector<std::size_t> holders_at_create;
  runtime.on_create = [&](const std::string&, int) {
    holders_at_create.push_back(node.holder_.pids().size());
  };
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan(
      "  restartPolicy: Never\n  hostIPC: true\n  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  PodRunResult r = RunPod(plan, env);
  EXPECT_EQ(r.phase, "Succeeded");
  EXPECT_TRUE(r.teardown_errors.empty());
  EXPECT_EQ(holders_at_create, (std::vector<std::size_t>{1}));
  const auto requests = node.holder_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].hostname, "web");
  EXPECT_TRUE(requests[0].host_ipc);
  EXPECT_FALSE(requests[0].host_network);
  ASSERT_EQ(requests[0].cgroup_procs.size(), 1u);
  EXPECT_EQ(requests[0].cgroup_procs[0],
            node.dir() / "cgroup/kubepods/besteffort" / ("pod" + plan.uid) / plan.sandbox_id /
                "cgroup.procs");
  // Reaped: no longer a child of this process.
  const pid_t holder = node.holder_.pids()[0];
  EXPECT_EQ(waitpid(holder, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_FALSE(fs::exists(plan.pod_dir));
}

// activeDeadlineSeconds: past it the pod is stopped (SIGTERM, the grace period) and fails with
// the kubelet's reason and message.
TEST(PodWorker, ActiveDeadlineStopsAndFailsThePod) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.runs_for = 60s}});
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan(
      "  restartPolicy: Never\n  activeDeadlineSeconds: 1\n"
      "  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  auto start = std::chrono::steady_clock::now();
  PodRunResult r = RunPod(plan, env);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 1s);
  EXPECT_LT(took, 10s);
  EXPECT_EQ(r.phase, "Failed");
  EXPECT_EQ(r.failure_reason, "DeadlineExceeded");
  EXPECT_EQ(r.failure, "Pod was active on the node longer than the specified deadline");
  EXPECT_FALSE(r.node_failure);
  EXPECT_EQ(Find(r, "app")->exit_code, 128 + SIGTERM);
  auto reasons = Reasons(events);
  EXPECT_NE(std::find(reasons.begin(), reasons.end(), "DeadlineExceeded"), reasons.end());
}

TEST(PodWorker, BackOffBetweenRestartsIsReportedAndDoubles) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.exit_code = 1}, {.exit_code = 1}, {.exit_code = 1}, {.exit_code = 0}});
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan =
      node.Plan("  restartPolicy: OnFailure\n  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  auto start = std::chrono::steady_clock::now();
  PodRunResult r = RunPod(plan, env);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.phase, "Succeeded");
  EXPECT_EQ(Find(r, "app")->restarts, 3);
  // At once, then 20 ms, then 40 ms: the kubelet's 10 s doubling, scaled for the test.
  EXPECT_GE(took, 60ms);
  auto reasons = Reasons(events);
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "BackOff"), 2);
  for (const auto& e : events.Events()) {
    if (e.reason == "BackOff") {
      EXPECT_EQ(e.message,
                "Back-off restarting failed container app in pod " + plan.PodDescription());
    }
  }
}

TEST(PodWorker, AlwaysRestartsUntilStopped) {
  FakeNode node;
  FakeRuntime runtime;
  PodStop stop;
  runtime.on_create = [&](const std::string&, int number) {
    if (number == 2) stop.Request();
  };
  runtime.Script("app", {{.exit_code = 0, .runs_for = 5ms}});
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan =
      node.Plan("  restartPolicy: Always\n  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output, &stop);
  PodRunResult r = RunPod(plan, env);
  EXPECT_TRUE(r.interrupted);
  EXPECT_GE(Find(r, "app")->restarts, 2);
  EXPECT_FALSE(fs::exists(plan.pod_dir));
}

TEST(PodWorker, StopRequestSendsSigtermAndTheContainerEnds) {
  FakeNode node;
  FakeRuntime runtime;
  PodStop stop;
  runtime.on_create = [&](const std::string& name, int) {
    (void)name;
    stop.Request();
  };
  runtime.Script("app", {{.runs_for = 60s}});
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan("  restartPolicy: Never\n  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output, &stop);
  auto start = std::chrono::steady_clock::now();
  PodRunResult r = RunPod(plan, env);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(Find(r, "app")->exit_code, 128 + SIGTERM);
  auto calls = runtime.CallsFor("app");
  EXPECT_NE(std::find(calls.begin(), calls.end(), "kill app 15"), calls.end());
  auto reasons = Reasons(events);
  EXPECT_NE(std::find(reasons.begin(), reasons.end(), "Killing"), reasons.end());
}

TEST(PodWorker, GracePeriodEndsInSigkill) {
  FakeNode node;
  FakeRuntime runtime;
  PodStop stop;
  runtime.on_create = [&](const std::string& name, int) {
    (void)name;
    stop.Request();
  };
  runtime.Script("app", {{.runs_for = 60s, .ignores_sigterm = true}});
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan("  restartPolicy: Never\n  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output, &stop);
  auto start = std::chrono::steady_clock::now();
  PodRunResult r = RunPod(plan, env);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 1s);  // the plan's grace period
  EXPECT_LT(took, 10s);
  EXPECT_EQ(Find(r, "app")->exit_code, 128 + SIGKILL);
  auto calls = runtime.CallsFor("app");
  EXPECT_NE(std::find(calls.begin(), calls.end(), "kill app 9"), calls.end());
}

TEST(PodWorker, SecondStopRequestKillsAtOnce) {
  FakeNode node;
  FakeRuntime runtime;
  PodStop stop;
  runtime.on_create = [&](const std::string&, int) {
    stop.Request();
    stop.Request();
  };
  runtime.Script("app", {{.runs_for = 60s, .ignores_sigterm = true}});
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan("  restartPolicy: Never\n  containers: [{name: app, image: busybox}]\n");
  plan.grace_period_seconds = 30;
  PodRunEnvironment env = node.Env(runtime, events, output, &stop);
  auto start = std::chrono::steady_clock::now();
  PodRunResult r = RunPod(plan, env);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(Find(r, "app")->exit_code, 128 + SIGKILL);
}

TEST(PodWorker, SidecarRunsBesideTheAppAndStopsAfterIt) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("proxy", {{.runs_for = 60s}});
  runtime.Script("app", {{.exit_code = 0, .runs_for = 50ms}});
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan(
      "  restartPolicy: Never\n"
      "  initContainers: [{name: proxy, image: busybox, restartPolicy: Always}]\n"
      "  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  PodRunResult r = RunPod(plan, env);
  EXPECT_EQ(r.phase, "Succeeded");
  auto calls = runtime.Calls();
  auto at = [&](const std::string& call) {
    return std::find(calls.begin(), calls.end(), call) - calls.begin();
  };
  EXPECT_LT(at("start proxy"), at("create app"));    // the sidecar does not block the app
  EXPECT_LT(at("delete app"), at("kill proxy 15"));  // and goes once the app is done
  EXPECT_TRUE(Find(r, "proxy")->sidecar);
}

TEST(PodWorker, SidecarsStopInReverseOrder) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("s1", {{.runs_for = 60s}});
  runtime.Script("s2", {{.runs_for = 60s}});
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan(
      "  restartPolicy: Never\n"
      "  initContainers: [{name: s1, image: busybox, restartPolicy: Always},"
      " {name: s2, image: busybox, restartPolicy: Always}]\n"
      "  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  PodRunResult r = RunPod(plan, env);
  auto calls = runtime.Calls();
  auto at = [&](const std::string& call) {
    return std::find(calls.begin(), calls.end(), call) - calls.begin();
  };
  EXPECT_LT(at("kill s2 15"), at("kill s1 15"));
}

TEST(PodWorker, ContainerOutputReachesItsSink) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.output = "hello\nworld\n"}});
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan("  restartPolicy: Never\n  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  PodRunResult r = RunPod(plan, env);
  EXPECT_FALSE(r.node_failure) << r.failure;
  EXPECT_EQ(output.Of("app"), "hello\nworld\n");
}

TEST(PodWorker, ARuntimeThatCannotRunIsANodeFailure) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.create_fails = true}});
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan =
      node.Plan("  restartPolicy: Always\n  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  PodRunResult r = RunPod(plan, env);
  EXPECT_TRUE(r.node_failure);
  EXPECT_EQ(r.phase, "Failed");
  EXPECT_NE(r.failure.find("the runtime could not be run"), std::string::npos) << r.failure;
  EXPECT_FALSE(fs::exists(plan.pod_dir));
}

TEST(PodWorker, TwoPodsRunAtOnceOnTwoThreads) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("a", {{.exit_code = 0, .runs_for = 1s, .output = "from a\n"}});
  runtime.Script("b", {{.exit_code = 4, .runs_for = 1s, .output = "from b\n"}});
  PodPlan plan_a =
      node.Plan("  restartPolicy: Never\n  containers: [{name: a, image: busybox}]\n", "pod-a");
  PodPlan plan_b =
      node.Plan("  restartPolicy: Never\n  containers: [{name: b, image: busybox}]\n", "pod-b");
  EventRecorder events_a, events_b;
  CapturedOutput output;
  PodRunEnvironment env_a = node.Env(runtime, events_a, output);
  PodRunEnvironment env_b = node.Env(runtime, events_b, output);
  PodRunResult ra, rb;
  std::thread ta([&] { ra = RunPod(plan_a, env_a); });
  std::thread tb([&] { rb = RunPod(plan_b, env_b); });
  ta.join();
  tb.join();
  // Side by side, not one after the other: each was created while the other still ran.
  auto calls = runtime.Calls();
  auto at = [&](const std::string& call) {
    return std::find(calls.begin(), calls.end(), call) - calls.begin();
  };
  EXPECT_LT(at("create b"), at("delete a"));
  EXPECT_LT(at("create a"), at("delete b"));
  EXPECT_EQ(ra.phase, "Succeeded");
  EXPECT_EQ(rb.phase, "Failed");
  EXPECT_EQ(Find(rb, "b")->exit_code, 4);
  EXPECT_EQ(output.Of("a"), "from a\n");
  EXPECT_EQ(output.Of("b"), "from b\n");
  for (const auto& e : events_a.Events()) {
    EXPECT_FALSE(e.message.starts_with("Container b")) << e.message;
    EXPECT_EQ(e.message.find("\"b\""), std::string::npos) << e.message;
  }
  EXPECT_FALSE(fs::exists(plan_a.pod_dir));
  EXPECT_FALSE(fs::exists(plan_b.pod_dir));
}

}  // namespace
}  // namespace podlimits::kubelet

namespace podlimits::kubelet {
namespace {

std::vector<std::string> CallsStartingWith(const FakeRuntime& runtime, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& call : runtime.Calls()) {
    if (call.starts_with(prefix)) out.push_back(call);
  }
  return out;
}

std::vector<std::string> Messages(const EventRecorder& events, const std::string& reason) {
  std::vector<std::string> out;
  for (const auto& e : events.Events()) {
    if (e.reason == reason) out.push_back(e.message);
  }
  return out;
}

// A liveness probe at its failure threshold kills the container (Killing, with the kubelet's
// message) and, under OnFailure, restarts it however it exited.
TEST(PodWorkerProbes, LivenessFailureKillsAndRestarts) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.runs_for = 30s}, {.exit_code = 0}});
  std::atomic<int> execs{0};
  runtime.on_exec = [&](const std::string&, const std::vector<std::string>&) {
    return execs++ == 0 ? cri::ExecResult{1, false, "sick", ""} : cri::ExecResult{0, false, "", ""};
  };
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan(
      "  restartPolicy: OnFailure\n  containers:\n  - name: app\n    image: busybox\n"
      "    livenessProbe: {exec: {command: [check]}, failureThreshold: 1}\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  PodRunResult r = RunPod(plan, env);
  EXPECT_EQ(r.phase, "Succeeded") << r.failure;
  EXPECT_EQ(Messages(events, "Unhealthy"), std::vector<std::string>{"Liveness probe failed: sick"});
  EXPECT_EQ(Messages(events, "Killing"),
            std::vector<std::string>{"Container app failed liveness probe, will be restarted"});
  ASSERT_NE(Find(r, "app"), nullptr);
  EXPECT_EQ(Find(r, "app")->restarts, 1);
  EXPECT_EQ(CallsStartingWith(runtime, "exec app").front(), "exec app check");
}

// Under Never the failed liveness probe ends the container and the pod; the message says no
// restart follows.
TEST(PodWorkerProbes, LivenessFailureUnderNeverFailsThePod) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.runs_for = 30s}});
  runtime.on_exec = [](const std::string&, const std::vector<std::string>&) {
    return cri::ExecResult{2, false, "", ""};
  };
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan(
      "  restartPolicy: Never\n  containers:\n  - name: app\n    image: busybox\n"
      "    livenessProbe: {exec: {command: [check]}, failureThreshold: 1}\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  PodRunResult r = RunPod(plan, env);
  EXPECT_EQ(r.phase, "Failed");
  EXPECT_EQ(Messages(events, "Killing"),
            std::vector<std::string>{"Container app failed liveness probe"});
  EXPECT_EQ(Find(r, "app")->restarts, 0);
}

// A failed postStart hook: FailedPostStartHook with the kubelet's message, then the container is
// killed; under Never the pod fails.
TEST(PodWorkerProbes, FailedPostStartHookKillsTheContainer) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.runs_for = 30s}});
  runtime.on_exec = [](const std::string&, const std::vector<std::string>&) {
    return cri::ExecResult{1, false, "out", "err"};
  };
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan(
      "  restartPolicy: Never\n  containers:\n  - name: app\n    image: busybox\n"
      "    lifecycle: {postStart: {exec: {command: [sh, -c, exit 1]}}}\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  PodRunResult r = RunPod(plan, env);
  EXPECT_EQ(r.phase, "Failed");
  const auto failed = Messages(events, "FailedPostStartHook");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0], "Exec lifecycle hook ([sh -c exit 1]) for Container \"app\" in Pod \"" +
                           plan.PodDescription() +
                           "\" failed - error: command 'sh -c exit 1' exited with 1: err, "
                           "message: \"out\"");
  EXPECT_EQ(Messages(events, "Killing"), std::vector<std::string>{"FailedPostStartHook"});
}

// A stop runs the preStop hook first and sends SIGTERM only when it has returned.
TEST(PodWorkerProbes, PreStopRunsBeforeSigterm) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.runs_for = 30s}});
  PodStop stop;
  runtime.on_create = [&](const std::string&, int) { stop.Request(); };
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan(
      "  restartPolicy: Never\n  containers:\n  - name: app\n    image: busybox\n"
      "    lifecycle: {preStop: {exec: {command: [drain]}}}\n");
  PodRunEnvironment env = node.Env(runtime, events, output, &stop);
  PodRunResult r = RunPod(plan, env);
  EXPECT_TRUE(r.interrupted);
  std::vector<std::string> order;
  for (const auto& call : runtime.Calls()) {
    if (call == "exec app drain" || call == "kill app 15") order.push_back(call);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"exec app drain", "kill app 15"}));
}

// A sidecar with a startup probe holds back what follows it until the probe passes.
TEST(PodWorkerProbes, SidecarStartupProbeGatesTheNextContainer) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("side", {{.runs_for = 30s}});
  runtime.Script("app", {{.exit_code = 0}});
  std::atomic<int> execs{0};
  runtime.on_exec = [&](const std::string&, const std::vector<std::string>&) {
    return execs++ == 0 ? cri::ExecResult{1, false, "", ""} : cri::ExecResult{0, false, "", ""};
  };
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan(
      "  restartPolicy: Never\n"
      "  initContainers:\n  - name: side\n    image: busybox\n    restartPolicy: Always\n"
      "    startupProbe: {exec: {command: [ready]}, periodSeconds: 1}\n"
      "  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  PodRunResult r = RunPod(plan, env);
  EXPECT_EQ(r.phase, "Succeeded") << r.failure;
  std::vector<std::string> order;
  for (const auto& call : runtime.Calls()) {
    if (call.starts_with("exec side") || call == "create app") order.push_back(call);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"exec side ready", "exec side ready", "create app"}));
  EXPECT_EQ(Messages(events, "Unhealthy"), std::vector<std::string>{"Startup probe failed: "});
}

}  // namespace
}  // namespace podlimits::kubelet

namespace podlimits::kubelet {
namespace {

// Failure paths, one step at a time: whatever fails is reported, nothing the pod made is left
// unless a cleanup step failed, and then its record stays and the next run's stale-pod recovery
// takes what is left.
TEST(PodWorkerFaults, EachStepFailingLeavesNothingOrARecoverableRecord) {
  struct FaultCase {
    const char* name;
    std::string op;           // the runtime call that fails, or "cgroup" for the pod cgroup
    bool container_runs;      // stopped by a stop request rather than exiting
    bool node_failure;
    std::string teardown_error;  // "" when the teardown is clean
  };
  const FaultCase cases[] = {
      {"start fails: a node failure, the created container is deleted", "start", false, true, ""},
      {"kill fails: the init process is signalled directly, the pod ends", "kill", true, false, ""},
      {"delete fails: reported, the record stays for the next run", "delete", false, false,
       "fake delete app: injected fault"},
      {"the pod cgroup cannot be removed: reported, the record stays", "cgroup", false, false,
       "pod"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeNode node;
    FakeRuntime runtime;
    const fs::path script = node.dir() / "runtime.sh";
    std::ofstream(script) << "#!/bin/sh\necho \"$@\" >> " << (node.dir() / "runtime.log").string()
                          << "\nexit 0\n";
    fs::permissions(script, fs::perms::owner_all);
    runtime.set_binary(script);
    runtime.Script("app", {c.container_runs ? FakeRun{.runs_for = 30s} : FakeRun{.exit_code = 0}});
    if (c.op != "cgroup") runtime.Fail(c.op, "app");
    PodStop stop;
    fs::path stray;
    runtime.on_create = [&](const std::string&, int) {
      if (c.container_runs) stop.Request();
      if (c.op == "cgroup") {
        // A file the teardown did not make blocks the pod cgroup's rmdir (ENOTEMPTY), as a
        // cgroup that will not go (EBUSY) does on a node.
        for (const auto& e : fs::recursive_directory_iterator(node.dir() / "cgroup")) {
          if (e.path().filename().string().starts_with("pod") && stray.empty()) {
            stray = e.path() / "stray";
          }
        }
        std::ofstream(stray) << "x";
      }
    };
    EventRecorder events;
    CapturedOutput output;
    PodPlan plan = node.Plan("  restartPolicy: Never\n  containers: [{name: app, image: busybox}]\n");
    PodRunEnvironment env = node.Env(runtime, events, output, &stop);
    PodRunResult r = RunPod(plan, env);

    EXPECT_EQ(r.node_failure, c.node_failure) << r.failure;
    if (c.op == "kill") {  // the failing call was made, and the stop still went through
      const auto calls = runtime.Calls();
      EXPECT_NE(std::find(calls.begin(), calls.end(), "kill app 15"), calls.end());
      EXPECT_TRUE(r.interrupted);
    }
    if (c.op == "start") {
      EXPECT_NE(r.failure.find("fake start app: injected fault"), std::string::npos) << r.failure;
    }
    std::string errors;
    for (const auto& e : r.teardown_errors) errors += e + "\n";
    if (c.teardown_error.empty()) {
      EXPECT_EQ(errors, "");
      EXPECT_FALSE(fs::exists(plan.pod_dir)) << "the record goes when nothing remains";
      continue;
    }
    EXPECT_NE(errors.find(c.teardown_error), std::string::npos) << errors;
    ASSERT_TRUE(fs::exists(plan.pod_dir)) << "the record stays while something it names remains";

    // The next run: the stale-pod recovery reclaims what is left.
    if (!stray.empty()) fs::remove(stray);
    StalePodEnvironment stale_env;
    stale_env.state_dir = node.dir() / "state";
    stale_env.hierarchies = [&] {
      PodRunEnvironment fresh = node.Env(runtime, events, output);
      return std::move(fresh.hierarchies);
    };
    auto cleaned = CleanUpStalePods(stale_env, "");
    ASSERT_EQ(cleaned.size(), 1u);
    EXPECT_TRUE(cleaned[0].ok()) << (cleaned[0].errors.empty() ? "" : cleaned[0].errors[0]);
    EXPECT_FALSE(fs::exists(plan.pod_dir));
    for (const auto& e : fs::recursive_directory_iterator(node.dir() / "cgroup")) {
      EXPECT_FALSE(e.path().filename().string().starts_with("pod")) << e.path();
    }
  }
}

}  // namespace
}  // namespace podlimits::kubelet

namespace podlimits::kubelet {
namespace {

// A postStart hook waiting on a server that never answers (hooks have no timeout of their own)
// does not hold up the pod's teardown: the stop cancels it.
TEST(PodWorkerProbes, AStuckHttpHookDoesNotHoldUpTheTeardown) {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  ASSERT_EQ(listen(listener, 4), 0);  // connections queue, nothing ever answers
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.runs_for = 30s}});
  PodStop stop;
  runtime.on_create = [&](const std::string&, int) { stop.Request(); };
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan(
      "  restartPolicy: Never\n  containers:\n  - name: app\n    image: busybox\n"
      "    lifecycle: {postStart: {httpGet: {host: 127.0.0.1, port: " +
      std::to_string(ntohs(addr.sin_port)) + "}}}\n");
  PodRunEnvironment env = node.Env(runtime, events, output, &stop);
  const auto started = std::chrono::steady_clock::now();
  PodRunResult r = RunPod(plan, env);
  EXPECT_TRUE(r.interrupted);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  close(listener);
}

}  // namespace
}  // namespace podlimits::kubelet

namespace podlimits::kubelet {
namespace {

// A ConfigMap that appears after the first `missing` lookups, as one created while the pod waits.
class LateConfigMap : public ObjectSource {
 public:
  explicit LateConfigMap(int missing) : missing_(missing) {}
  std::optional<api::ConfigMap> GetConfigMap(std::string_view namespace_,
                                             std::string_view name) const override {
    if (lookups_++ < missing_ || name != "settings") return std::nullopt;
    api::ConfigMap cm;
    cm.metadata = {"settings", "", std::string(namespace_), "", {}, {}};
    cm.data = {{"MODE", "fast"}};
    return cm;
  }
  std::optional<api::Secret> GetSecret(std::string_view, std::string_view) const override {
    return std::nullopt;
  }
  int lookups() const { return lookups_; }

 private:
  int missing_;
  mutable std::atomic<int> lookups_{0};
};

constexpr std::string_view kReadsSettings =
    "  restartPolicy: Never\n  containers:\n  - name: app\n    image: busybox\n"
    "    envFrom: [{configMapRef: {name: settings}}]\n";

// An ephemeral container a spec update adds starts in the running pod, is never restarted, and
// its exit is no part of the pod's phase; one the node refused waits with the node's reason.
TEST(PodWorker, EphemeralContainersStartInTheRunningPodAndAreNeverRestarted) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.exit_code = 0, .runs_for = 400ms}});
  runtime.Script("dbg", {{.exit_code = 3, .runs_for = 20ms}});
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan("  restartPolicy: Always\n  containers: [{name: app, image: busybox}]\n");
  PodRunEnvironment env = node.Env(runtime, events, output);
  PodStop stop;
  env.stop = &stop;
  PodSpecUpdates updates;
  env.spec_updates = &updates;
  auto ephemeral = [](const std::string& name) {
    api::Container c;
    c.kind = api::ContainerKind::kEphemeral;
    c.name = name;
    c.image = "busybox";
    c.command = {"true"};
    c.termination_message_path = "/dev/termination-log";
    c.termination_message_policy = "File";
    return c;
  };
  PodSpecUpdate update = SpecUpdateOf(plan.pod);
  update.ephemeral_containers.push_back({PlanContainer(ephemeral("dbg"), AdmitResult{}), ""});
  update.ephemeral_containers.push_back(
      {PlanContainer(ephemeral("big"), AdmitResult{}), "a refusal of the node's"});
  bool pushed = false;
  std::vector<std::string> seen;
  env.on_progress = [&](const PodProgress& p) {
    // Once the app runs: the update, then a stop when dbg has ended.
    bool app_running = false;
    for (const auto& c : p.containers) {
      app_running |= c.name == "app" && c.state == ContainerProgress::State::kRunning;
      if (!c.ephemeral) continue;
      std::string state = c.name + " " + c.waiting_reason;
      if (c.terminated) state += "exit " + std::to_string(c.terminated->exit_code);
      if (seen.empty() || seen.back() != state) seen.push_back(state);
      if (c.name == "dbg" && c.terminated) stop.Request(1);
    }
    if (app_running && !pushed) {
      pushed = true;
      updates.Push(update);
    }
  };
  PodRunResult r = RunPod(plan, env);
  ASSERT_NE(Find(r, "dbg"), nullptr);
  EXPECT_EQ(Find(r, "dbg")->exit_code, 3);
  EXPECT_EQ(Find(r, "dbg")->restarts, 0) << "restartPolicy Always is not the ephemeral's";
  EXPECT_NE(std::find(seen.begin(), seen.end(), "dbg exit 3"), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), "big CreateContainerError"), seen.end());
  auto calls = runtime.Calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "create dbg"), 1);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "create big"), 0);
  EXPECT_LT(std::find(calls.begin(), calls.end(), "start app"),
            std::find(calls.begin(), calls.end(), "create dbg"));
}

// On a node that keeps pods, CreateContainerConfigError is waited out: the container waits with
// the kubelet's reason and message, each retry ensures the image again (Pulled) and fails again
// (Failed), and once the ConfigMap exists the container starts, not counted as a restart.
TEST(PodWorker, ConfigErrorIsRetriedUntilTheConfigMapExists) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.exit_code = 0, .runs_for = 5ms}});
  EventRecorder events;
  CapturedOutput output;
  LateConfigMap objects(3);
  PodPlan plan = node.Plan(std::string(kReadsSettings));
  PodRunEnvironment env = node.Env(runtime, events, output);
  env.objects = &objects;
  env.config_retry = 20ms;
  std::vector<std::string> waiting;
  env.on_progress = [&](const PodProgress& p) {
    for (const auto& c : p.containers) {
      if (c.waiting_reason == "CreateContainerConfigError") {
        waiting.push_back(c.waiting_reason + ": " + c.waiting_message);
      }
    }
  };
  PodRunResult r = RunPod(plan, env);
  EXPECT_EQ(r.phase, "Succeeded");
  ASSERT_NE(Find(r, "app"), nullptr);
  EXPECT_EQ(Find(r, "app")->restarts, 0);
  EXPECT_EQ(Find(r, "app")->reason, "Completed");
  ASSERT_FALSE(waiting.empty());
  EXPECT_EQ(waiting.front(), "CreateContainerConfigError: configmap \"settings\" not found");
  auto reasons = Reasons(events);
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "Failed"), 3);
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "Pulled"), 4);
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "Started"), 1);
  EXPECT_EQ(objects.lookups(), 4);
}

// A one-shot run cannot wait for an object that nobody will create: the pod fails.
TEST(PodWorker, ConfigErrorFailsThePodWithoutRetries) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.exit_code = 0}});
  EventRecorder events;
  CapturedOutput output;
  LateConfigMap objects(1000);
  PodPlan plan = node.Plan(std::string(kReadsSettings));
  PodRunEnvironment env = node.Env(runtime, events, output);
  env.objects = &objects;
  PodRunResult r = RunPod(plan, env);
  EXPECT_EQ(r.phase, "Failed");
  EXPECT_EQ(Find(r, "app")->reason, "CreateContainerConfigError");
  EXPECT_EQ(objects.lookups(), 1);
  EXPECT_TRUE(runtime.CallsFor("app").empty());
}

}  // namespace
}  // namespace podlimits::kubelet

namespace podlimits::kubelet {
namespace {

constexpr std::string_view kNewImage =
    "  restartPolicy: Never\n"
    "  containers:\n"
    "  - name: app\n"
    "    image: app:v2\n";

// A missing image is ErrImageNeverPull, waited out on a node that keeps pods, as the kubelet
// keeps a pod whose image it may not pull: the container waits with the image manager's reason
// and message (naming the store and how to load into it), each look is an event, and once the
// image is loaded the pod starts. Before, the pod failed at once.
TEST(PodWorker, MissingImageIsWaitedOutUntilItIsLoaded) {
  FakeNode node;
  FakeRuntime runtime;
  runtime.Script("app", {{.exit_code = 0, .runs_for = 5ms}});
  // The image is loaded after the node has looked for it twice (each look that misses is an
  // event; the progress is reported only when it changes, so the events are what counts).
  int looks = 0;
  EventRecorder events([&](const Event& e) {
    if (e.reason == "ErrImageNeverPull" && ++looks == 2) node.LoadImage("app:v2");
  });
  CapturedOutput output;
  PodPlan plan = node.Plan(std::string(kNewImage));
  PodRunEnvironment env = node.Env(runtime, events, output);
  env.config_retry = 20ms;
  std::vector<std::string> waiting;
  std::vector<std::string> phases_while_waiting;
  env.on_progress = [&](const PodProgress& p) {
    for (const auto& c : p.containers) {
      if (c.waiting_reason != "ErrImageNeverPull") continue;
      waiting.push_back(c.waiting_message);
      if (p.finished) phases_while_waiting.push_back(p.final_phase);
    }
  };
  PodRunResult r = RunPod(plan, env);
  EXPECT_EQ(r.phase, "Succeeded");
  ASSERT_NE(Find(r, "app"), nullptr);
  EXPECT_EQ(Find(r, "app")->restarts, 0);
  ASSERT_FALSE(waiting.empty());
  const std::string store = (node.dir() / "images").string();
  EXPECT_EQ(waiting.front(),
            "Container image \"app:v2\" is not present with pull policy of Never: image "
            "\"app:v2\" not found in \"" + store + "\" (load it with `podlimits image --data-dir " +
                node.dir().string() + " load SOURCE --name app:v2`)");
  EXPECT_TRUE(phases_while_waiting.empty()) << "a waiting pod has not finished";
  auto reasons = Reasons(events);
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "ErrImageNeverPull"), 2);
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "Started"), 1);
}

// A one-shot run (podlimits run) cannot wait for an image nobody will load: the pod fails, with
// one ErrImageNeverPull event.
TEST(PodWorker, MissingImageFailsAOneShotRun) {
  FakeNode node;
  FakeRuntime runtime;
  EventRecorder events;
  CapturedOutput output;
  PodPlan plan = node.Plan(std::string(kNewImage));
  PodRunEnvironment env = node.Env(runtime, events, output);
  PodRunResult r = RunPod(plan, env);
  EXPECT_EQ(r.phase, "Failed");
  EXPECT_EQ(r.failure_reason, "ErrImageNeverPull");
  auto reasons = Reasons(events);
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "ErrImageNeverPull"), 1);
  EXPECT_TRUE(runtime.CallsFor("app").empty());
}

// The restart index each container's output was opened with (its log file is <restart>.log).
class RestartIndexOutput : public cri::ContainerOutput {
 public:
  std::unique_ptr<cri::OutputSink> Open(std::string_view container, int restart, cri::OutputStream) override {
    std::lock_guard lock(mu_);
    opened_.push_back(std::string(container) + ":" + std::to_string(restart));
    return std::make_unique<Discard>();
  }
  std::vector<std::string> opened() {
    std::lock_guard lock(mu_);
    return opened_;
  }

 private:
  struct Discard : cri::OutputSink {
    void Feed(std::string_view) override {}
    void Finish() override {}
  };
  std::mutex mu_;
  std::vector<std::string> opened_;
};

int Count(const std::vector<std::string>& calls, const std::string& call) {
  return static_cast<int>(std::count(calls.begin(), calls.end(), call));
}

// A worker that takes over from one that died with its containers (ContainerHistory): a container
// that was running is lost (137, ContainerStatusUnknown), and under a policy that restarts it
// counts one more restart and logs to the next file; under Never it stays terminated and the pod
// fails; a container that had completed under OnFailure is not run again.
TEST(PodWorker, HistoryOfAnEarlierWorkerCarriesOver) {
  struct Case {
    const char* name;
    std::string spec;
    std::vector<ContainerHistory> history;
    std::string phase;
    std::map<std::string, int> restarts;  // by container
    std::map<std::string, int> creates;   // containers made by this worker
    std::map<std::string, std::string> last_reason;
  };
  TerminatedState completed;
  completed.exit_code = 0;
  completed.reason = "Completed";
  TerminatedState crashed;
  crashed.exit_code = 1;
  crashed.reason = "Error";
  const Case cases[] = {
      {"Always: the running container restarts, counted",
       "  restartPolicy: Always\n  containers: [{name: app, image: busybox}]\n",
       {{"app", 2, true, std::nullopt, crashed}},
       "",
       {{"app", 3}},
       {{"app", 1}},
       {{"app", "ContainerStatusUnknown"}}},
      {"Never: the running container is lost and the pod fails",
       "  restartPolicy: Never\n  containers: [{name: app, image: busybox}]\n",
       {{"app", 0, true, std::nullopt, std::nullopt}},
       "Failed",
       {{"app", 0}},
       {{"app", 0}},
       {}},
      {"OnFailure: the completed container stays done, the running one restarts",
       "  restartPolicy: OnFailure\n  containers: [{name: done, image: busybox}, {name: app, "
       "image: busybox}]\n",
       {{"done", 0, false, completed, std::nullopt}, {"app", 0, true, std::nullopt, std::nullopt}},
       "Succeeded",
       {{"done", 0}, {"app", 1}},
       {{"done", 0}, {"app", 1}},
       {{"app", "ContainerStatusUnknown"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeNode node;
    FakeRuntime runtime;
    PodStop stop;
    // Under Always the restarted container is stopped once it runs; elsewhere it completes.
    const bool always = c.spec.find("Always") != std::string::npos;
    runtime.Script("app", {{.exit_code = 0, .runs_for = always ? 60s : 5ms}});
    runtime.Script("done", {{.exit_code = 0}});
    if (always) runtime.on_create = [&](const std::string&, int) { stop.Request(); };
    EventRecorder events;
    RestartIndexOutput output;
    PodPlan plan = node.Plan(c.spec);
    PodRunEnvironment env = node.Env(runtime, events, output, &stop);
    env.history = c.history;
    std::vector<ContainerProgress> first, running;  // the first report; running ones seen
    env.on_progress = [&](const PodProgress& p) {
      if (first.empty()) first = p.containers;
      for (const auto& cp : p.containers) {
        if (cp.state == ContainerProgress::State::kRunning) running.push_back(cp);
      }
    };
    PodRunResult r = RunPod(plan, env);
    if (!c.phase.empty()) {
      EXPECT_EQ(r.phase, c.phase);
    }
    for (const auto& [name, restarts] : c.restarts) {
      ASSERT_NE(Find(r, name), nullptr) << name;
      EXPECT_EQ(Find(r, name)->restarts, restarts) << name;
    }
    for (const auto& [name, creates] : c.creates) {
      EXPECT_EQ(Count(runtime.CallsFor(name), "create " + name), creates) << name;
    }
    if (c.creates.at("app") == 1) {
      const auto opened = output.opened();
      const std::string want = "app:" + std::to_string(c.restarts.at("app"));
      EXPECT_NE(std::find(opened.begin(), opened.end(), want), opened.end())
          << "the log goes on in the next file";
    }
    for (const auto& [name, reason] : c.last_reason) {
      bool seen = false;
      for (const auto& p : running) {
        if (p.name != name || !p.last_terminated) continue;
        seen = true;
        EXPECT_EQ(p.last_terminated->reason, reason) << name;
        EXPECT_EQ(p.last_terminated->exit_code, 137) << name;
      }
      EXPECT_TRUE(seen) << name << " never ran with a lastState";
    }
    if (c.phase == "Failed") {
      ASSERT_FALSE(first.empty());
      ASSERT_TRUE(first.back().terminated);
      EXPECT_EQ(first.back().terminated->reason, "ContainerStatusUnknown");
      EXPECT_EQ(first.back().terminated->message,
                "The container could not be located when the pod was deleted.  The container "
                "used to be Running");
    }
  }
}

// The ephemeral containers a pod had when a new worker takes it over (a pod monitor killed):
// never restarted. One that was running is lost (137, ContainerStatusUnknown) and not started
// again, one that had exited keeps its end, one that never ran (no history) starts once the
// app has (the kubelet's sync after the sandbox's), and the node's refusal is only for one that
// never ran.
TEST(PodWorker, EphemeralContainersOfAnEarlierWorkerAreNeverRestarted) {
  TerminatedState exited;
  exited.exit_code = 3;
  exited.reason = "Error";
  exited.started_at = "2027-01-15T07:00:01Z";
  exited.finished_at = "2027-01-15T07:00:02Z";
  exited.container_id = "podlimits://0123";
  struct Case {
    const char* name;
    std::vector<ContainerHistory> history;
    std::string refused;  // the node's refusal of dbg (PlanSpecUpdate)
    int creates;          // of dbg, by this worker
    std::optional<TerminatedState> terminated;  // dbg's end as the worker reports it
    std::string waiting_reason;                 // or why it waits
  };
  const TerminatedState lost = LostContainerState();
  TerminatedState ran_now;  // what the fake runtime's run of dbg ends with
  ran_now.exit_code = 5;
  ran_now.reason = "Error";
  const Case cases[] = {
      {"running under the earlier worker: lost, not started again",
       {{"dbg", 0, true, std::nullopt, std::nullopt}}, "", 0, lost, ""},
      {"exited under the earlier worker: keeps its end",
       {{"dbg", 0, false, exited, std::nullopt}}, "", 0, exited, ""},
      {"never ran (no history): starts in the new worker", {}, "", 1, ran_now, ""},
      {"waiting under the earlier worker (no runtime status): starts",
       {{"dbg", 0, false, std::nullopt, std::nullopt}}, "", 1, ran_now, ""},
      {"refused, never ran: waits with the node's refusal", {}, "a refusal of the node's", 0,
       std::nullopt, "CreateContainerError"},
      {"refused now, but it ran: lost, not refused",
       {{"dbg", 0, true, std::nullopt, std::nullopt}}, "a refusal of the node's", 0, lost, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeNode node;
    FakeRuntime runtime;
    runtime.Script("app", {{.exit_code = 0, .runs_for = 60s}});
    runtime.Script("dbg", {{.exit_code = 5, .runs_for = 20ms}});
    EventRecorder events;
    RestartIndexOutput output;
    PodStop stop;
    PodPlan plan =
        node.Plan("  restartPolicy: Always\n  containers: [{name: app, image: busybox}]\n");
    PodRunEnvironment env = node.Env(runtime, events, output, &stop);
    env.history = c.history;
    api::Container dbg;
    dbg.kind = api::ContainerKind::kEphemeral;
    dbg.name = "dbg";
    dbg.image = "busybox";
    dbg.command = {"true"};
    dbg.termination_message_path = "/dev/termination-log";
    dbg.termination_message_policy = "File";
    env.ephemeral_containers.push_back({PlanContainer(dbg, AdmitResult{}), c.refused});
    std::optional<ContainerProgress> last;  // dbg as last reported while the pod ran
    env.on_progress = [&](const PodProgress& p) {
      if (p.finished) return;
      bool app_running = false;
      for (const auto& cp : p.containers) {
        app_running |= cp.name == "app" && cp.state == ContainerProgress::State::kRunning;
        if (cp.ephemeral) last = cp;
      }
      // Once the app runs and dbg has settled (ended, or waits for good), the pod is stopped.
      const bool settled = last && (last->terminated || last->waiting_reason == "CreateContainerError");
      if (app_running && settled) stop.Request(1);
    };
    PodRunResult r = RunPod(plan, env);
    EXPECT_EQ(Count(runtime.CallsFor("dbg"), "create dbg"), c.creates);
    ASSERT_TRUE(last);
    EXPECT_TRUE(last->ephemeral);
    EXPECT_EQ(last->restart_count, 0);
    EXPECT_EQ(last->waiting_reason, c.waiting_reason);
    ASSERT_EQ(last->terminated.has_value(), c.terminated.has_value());
    if (c.terminated && c.creates == 0) {
      EXPECT_EQ(*last->terminated, *c.terminated) << "what the earlier worker published, as it was";
    } else if (c.terminated) {
      EXPECT_EQ(last->terminated->exit_code, c.terminated->exit_code);
      EXPECT_EQ(last->terminated->reason, c.terminated->reason);
    }
    const auto opened = output.opened();
    EXPECT_EQ(std::count(opened.begin(), opened.end(), "dbg:0"), 2 * c.creates)
        << "a run of its own logs (stdout and stderr) to 0.log; one not run again leaves its log "
           "alone";
    if (c.creates == 1) {
      auto calls = runtime.Calls();
      EXPECT_LT(std::find(calls.begin(), calls.end(), "start app"),
                std::find(calls.begin(), calls.end(), "create dbg"))
          << "started at the sync after the one that started the app";
    }
    ASSERT_NE(Find(r, "dbg"), nullptr);
    EXPECT_EQ(Find(r, "dbg")->restarts, 0);
    EXPECT_TRUE(r.interrupted) << "the app runs until stopped: dbg's end is none of the pod's";
  }
}

}  // namespace
}  // namespace podlimits::kubelet
