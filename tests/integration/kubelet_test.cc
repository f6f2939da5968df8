// The Kubelet library as the node agent calls it: one Kubelet, Start() once, two pods run at the
// same time on two threads through a real OCI runtime. Start() changes the process for good (a
// private mount namespace, the subreaper), so each test runs it in a child process and reports
// back through its exit status and a pipe.
#include "kubelet/kubelet.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "api/objects.h"
#include "api/pod_object.h"
#include "run_test_support.h"
#include "test_support.h"

namespace podlimits::kubelet {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class KubeletTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (cgroups, mounts, an OCI runtime)";
    scratch_ = fs::temp_directory_path() / ("podlimits-kubelet-test-" + std::to_string(getpid()));
    fs::create_directories(scratch_);
    ASSERT_EQ(podlimits::testing::LoadBusyboxImage(scratch_, scratch_ / "images"), "");
  }
  void TearDown() override {
    std::error_code ec;
    if (!scratch_.empty()) fs::remove_all(scratch_, ec);
  }
  fs::path scratch_;
};

codec::Node SleepingPod(const std::string& name, const std::string& uid) {
  return podlimits::testing::DefaultedPodTree("apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
                                          ", uid: " + uid +
                                          "}\nspec:\n  restartPolicy: Never\n"
                                          "  containers:\n  - name: app\n    image: busybox\n"
                                          "    command: [sh, -c, 'sleep 1; echo done']\n");
}

// In a child process: Start, then both pods at once. Exit 0 when both succeeded and each
// started before the other ended; otherwise what went wrong is written to `report_fd`.
int RunTwoPodsAtOnce(const fs::path& scratch, int report_fd) {
  auto report = [&](const std::string& text) {
    (void)!write(report_fd, text.data(), text.size());
    return 1;
  };
  NodeConfig config = DefaultNodeConfig();
  config.state_directory = (scratch / "state").string();
  const char* path = std::getenv("PATH");
  Kubelet node(KubeletOptions{config, scratch / "images", path ? path : "/usr/bin:/bin"});
  if (auto started = node.Start(); !started) return report(started.error().Message());

  struct Run {
    Clock::time_point started, ended;
    PodOutcome outcome;
  };
  Run a, b;
  std::mutex mu;
  auto run = [&](Run& r, const codec::Node& pod) {
    EventRecorder events([&](const Event& e) {
      std::lock_guard lock(mu);
      if (e.reason == "Started") r.started = Clock::now();
    });
    cri::PrefixedOutput output(report_fd);
    r.outcome = node.RunPod(api::PodObject::FromTree(pod), {&events, &output, nullptr, nullptr, {}, {}, {}});
    r.ended = Clock::now();
  };
  std::thread ta(run, std::ref(a), SleepingPod("pod-a", "0e2e0000-0000-4000-8000-00000000a001"));
  std::thread tb(run, std::ref(b), SleepingPod("pod-b", "0e2e0000-0000-4000-8000-00000000b001"));
  ta.join();
  tb.join();
  for (Run* r : {&a, &b}) {
    if (r->outcome.kind != PodOutcome::Kind::kRan) return report("not run: " + r->outcome.error);
    if (r->outcome.result.phase != "Succeeded") {
      return report("phase " + r->outcome.result.phase + ": " + r->outcome.result.failure);
    }
  }
  if (!(a.started < b.ended && b.started < a.ended)) return report("the pods did not overlap");
  return 0;
}

TEST_F(KubeletTest, TwoPodsRunAtOnceThroughOneKubelet) {
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(report[0]);
    _exit(RunTwoPodsAtOnce(scratch_, report[1]));
  }
  close(report[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(report[0], buf, sizeof buf)) > 0;) text.append(buf, n);
  close(report[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << text;
  EXPECT_EQ(WEXITSTATUS(status), 0) << text;
  // Both containers' output went through their sinks.
  EXPECT_NE(text.find("[app] done"), std::string::npos) << text;
  EXPECT_TRUE(!fs::exists(scratch_ / "state/pods") || fs::is_empty(scratch_ / "state/pods"));
}

}  // namespace
}  // namespace podlimits::kubelet
