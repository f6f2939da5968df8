// The API's PodStatus from where a pod stands: getPhase and the kubelet's conditions.
#include "kubelet/status/pod_api_status.h"

#include <gtest/gtest.h>

#include "codec/json_codec.h"

namespace podlimits::kubelet {
namespace {

using State = ContainerProgress::State;

ContainerProgress C(std::string name, State state, int exit_code = 0, bool init = false) {
  ContainerProgress c;
  c.name = std::move(name);
  c.init = init;
  c.state = state;
  if (state == State::kRunning) {
    c.started = c.ready = true;
    c.started_at = "2026-11-26T00:00:00Z";
  }
  if (state == State::kTerminated) {
    TerminatedState t;
    t.exit_code = exit_code;
    t.reason = exit_code == 0 ? "Completed" : "Error";
    c.terminated = t;
  }
  return c;
}

TEST(PodApiStatusTest, PhaseAsGetPhase) {
  struct Case {
    std::string name;
    std::vector<ContainerProgress> containers;
    bool initialized;
    std::string policy, phase;
  };
  ContainerProgress crashed = C("a", State::kWaiting);
  crashed.waiting_reason = "CrashLoopBackOff";
  crashed.last_terminated = TerminatedState();
  crashed.last_terminated->exit_code = 1;
  const std::vector<Case> cases = {
      {"init running", {C("i", State::kRunning, 0, true), C("a", State::kWaiting)}, false,
       "Always", "Pending"},
      {"waiting for first start", {C("a", State::kWaiting)}, true, "Always", "Pending"},
      {"running", {C("a", State::kRunning)}, true, "Always", "Running"},
      {"crash loop is Running under Always", {crashed}, true, "Always", "Running"},
      {"all exited 0 under Never", {C("a", State::kTerminated, 0)}, true, "Never", "Succeeded"},
      {"one failed under Never", {C("a", State::kTerminated, 0), C("b", State::kTerminated, 2)},
       true, "Never", "Failed"},
      {"failed under OnFailure restarts", {C("a", State::kTerminated, 2)}, true, "OnFailure",
       "Running"},
      {"succeeded under OnFailure", {C("a", State::kTerminated, 0)}, true, "OnFailure",
       "Succeeded"},
      {"one running one done", {C("a", State::kRunning), C("b", State::kTerminated, 0)}, true,
       "Never", "Running"},
  };
  for (const auto& c : cases) {
    PodProgress p;
    p.containers = c.containers;
    p.initialized = c.initialized;
    EXPECT_EQ(RunningPodPhase(p, c.policy), c.phase) << c.name;
  }
}

const codec::Node* Condition(const codec::Node& status, std::string_view type) {
  for (const auto& c : status.Find("conditions")->items) {
    if (c.Find("type")->scalar == type) return &c;
  }
  return nullptr;
}

TEST(PodApiStatusTest, ConditionsWithTheKubeletsReasons) {
  PodProgress p;
  p.sandbox_ready = true;
  p.initialized = true;
  p.start_time = "2026-11-26T00:00:00Z";
  ContainerProgress waiting = C("db", State::kWaiting);
  waiting.waiting_reason = "ContainerCreating";
  p.containers = {C("web", State::kRunning), waiting};
  PodStatusContext context;
  context.qos_class = "BestEffort";
  context.host_ip = "10.0.0.5";
  codec::Node status = PodApiStatus(p, context, nullptr, "2026-11-26T00:00:01Z");
  EXPECT_EQ(status.Find("phase")->scalar, "Pending");
  const codec::Node* ready = Condition(status, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->Find("status")->scalar, "False");
  EXPECT_EQ(ready->Find("reason")->scalar, "ContainersNotReady");
  EXPECT_EQ(ready->Find("message")->scalar, "containers with unready status: [db]");
  EXPECT_EQ(Condition(status, "PodReadyToStartContainers")->Find("status")->scalar, "True");
  EXPECT_EQ(status.Find("hostIP")->scalar, "10.0.0.5");
  EXPECT_EQ(status.Find("qosClass")->scalar, "BestEffort");
  EXPECT_EQ(status.Find("containerStatuses")->items.size(), 2u);

  // Later, the pod is ready: Ready's time moves, PodScheduled's stays.
  p.containers[1] = C("db", State::kRunning);
  codec::Node next = PodApiStatus(p, context, &status, "2026-11-26T00:00:09Z");
  EXPECT_EQ(Condition(next, "Ready")->Find("status")->scalar, "True");
  EXPECT_EQ(Condition(next, "Ready")->Find("lastTransitionTime")->scalar, "2026-11-26T00:00:09Z");
  EXPECT_EQ(Condition(next, "PodScheduled")->Find("lastTransitionTime")->scalar,
            "2026-11-26T00:00:01Z");
  EXPECT_EQ(next.Find("phase")->scalar, "Running");

  // Finished: PodCompleted.
  p.finished = true;
  p.final_phase = "Succeeded";
  p.containers = {C("web", State::kTerminated, 0), C("db", State::kTerminated, 0)};
  codec::Node done = PodApiStatus(p, context, &next, "2026-11-26T00:01:00Z");
  EXPECT_EQ(done.Find("phase")->scalar, "Succeeded");
  EXPECT_EQ(Condition(done, "Ready")->Find("reason")->scalar, "PodCompleted");
  EXPECT_EQ(Condition(done, "PodReadyToStartContainers")->Find("status")->scalar, "False");
}

TEST(PodApiStatusTest, InitContainersNotDone) {
  PodProgress p;
  p.sandbox_ready = true;
  p.containers = {C("setup", State::kRunning, 0, true), C("web", State::kWaiting)};
  p.containers[1].waiting_reason = "PodInitializing";
  codec::Node status = PodApiStatus(p, {}, nullptr, "2026-11-26T00:00:01Z");
  const codec::Node* init = Condition(status, "Initialized");
  EXPECT_EQ(init->Find("status")->scalar, "False");
  EXPECT_EQ(init->Find("reason")->scalar, "ContainersNotInitialized");
  EXPECT_EQ(init->Find("message")->scalar, "containers with incomplete status: [setup]");
  EXPECT_EQ(status.Find("initContainerStatuses")->items.size(), 1u);
  EXPECT_EQ(status.Find("phase")->scalar, "Pending");
}

}  // namespace
}  // namespace podlimits::kubelet

namespace podlimits::kubelet {
namespace {

// A published status reads back as the history a new worker goes on from.
TEST(PodApiStatusTest, ContainerHistoryReadsBackWhatWasPublished) {
  PodProgress p;
  ContainerProgress init;
  init.name = "setup";
  init.init = true;
  init.state = ContainerProgress::State::kTerminated;
  init.terminated = TerminatedState{0, 0, "Completed", "", "2027-01-15T07:00:00Z",
                                    "2027-01-15T07:00:01Z", "podlimits://a"};
  ContainerProgress app;
  app.name = "app";
  app.state = ContainerProgress::State::kRunning;
  app.started_at = "2027-01-15T07:00:02Z";
  app.restart_count = 4;
  app.last_terminated = TerminatedState{2, 0, "Error", "boom", "2027-01-15T07:00:01Z",
                                        "2027-01-15T07:00:02Z", "podlimits://b"};
  p.containers = {init, app};
  auto history = ContainerHistoryFromStatus(PodApiStatus(p, {}, nullptr, "2027-01-15T07:00:03Z"));
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].name, "setup");
  EXPECT_FALSE(history[0].was_running);
  ASSERT_TRUE(history[0].terminated);
  EXPECT_EQ(*history[0].terminated, *init.terminated);
  EXPECT_EQ(history[1].name, "app");
  EXPECT_TRUE(history[1].was_running);
  EXPECT_EQ(history[1].restart_count, 4);
  EXPECT_FALSE(history[1].terminated);
  ASSERT_TRUE(history[1].last_terminated);
  EXPECT_EQ(*history[1].last_terminated, *app.last_terminated);
}

// An ephemeral container's published status reads back as its history too (from
// status.ephemeralContainerStatuses): running, terminated with its end, or waiting (it never
// ran: no end and not running).
TEST(PodApiStatusTest, EphemeralContainerHistoryReadsBack) {
  const TerminatedState exited{3, 0, "Error", "", "2027-01-15T07:00:01Z", "2027-01-15T07:00:02Z",
                               "podlimits://e"};
  struct Case {
    const char* name;
    ContainerProgress::State state;
    std::optional<TerminatedState> terminated;
    std::string waiting_reason;
    bool want_running;
  };
  const Case cases[] = {
      {"running", ContainerProgress::State::kRunning, std::nullopt, "", true},
      {"exited", ContainerProgress::State::kTerminated, exited, "", false},
      {"waiting", ContainerProgress::State::kWaiting, std::nullopt, "CreateContainerError", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ContainerProgress app;
    app.name = "app";
    app.state = ContainerProgress::State::kRunning;
    app.started_at = "2027-01-15T07:00:00Z";
    ContainerProgress dbg;
    dbg.name = "dbg";
    dbg.ephemeral = true;
    dbg.state = c.state;
    dbg.terminated = c.terminated;
    dbg.waiting_reason = c.waiting_reason;
    if (c.state == ContainerProgress::State::kRunning) dbg.started_at = "2027-01-15T07:00:01Z";
    PodProgress p;
    p.containers = {app, dbg};
    const codec::Node status = PodApiStatus(p, {}, nullptr, "2027-01-15T07:00:03Z");
    ASSERT_NE(status.Find("ephemeralContainerStatuses"), nullptr);
    auto history = ContainerHistoryFromStatus(status);
    ASSERT_EQ(history.size(), 2u);
    EXPECT_EQ(history[1].name, "dbg");
    EXPECT_EQ(history[1].was_running, c.want_running);
    EXPECT_EQ(history[1].restart_count, 0);
    EXPECT_EQ(history[1].terminated, c.terminated);
    EXPECT_FALSE(history[1].last_terminated);
  }
}

}  // namespace
}  // namespace podlimits::kubelet
