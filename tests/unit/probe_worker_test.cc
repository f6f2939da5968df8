// The prober worker's bookkeeping: when a probe is due and what its outcomes make of its result.
#include "kubelet/prober/probe_worker.h"

#include <gtest/gtest.h>

namespace podlimits::kubelet {
namespace {

using Clock = ProbeWorker::Clock;
using namespace std::chrono_literals;

ActionOutcome Outcome(ProbeResult r, std::string output = "", std::string error = "") {
  ActionOutcome o;
  o.result = r;
  o.output = std::move(output);
  o.error = std::move(error);
  return o;
}

TEST(ProbeWorker, TimingAndStartupGating) {
  api::Probe p;
  p.initial_delay_seconds = 5;
  p.period_seconds = 3;
  const auto t0 = Clock::now();
  ProbeWorker liveness(ProbeType::kLiveness, p);
  liveness.Reset(t0);
  EXPECT_FALSE(liveness.Due(t0 + 4s, true));  // initial delay
  EXPECT_FALSE(liveness.Due(t0 + 6s, false));  // the startup probe has not passed
  EXPECT_TRUE(liveness.Due(t0 + 6s, true));
  liveness.Submitted(1, t0 + 6s);
  EXPECT_FALSE(liveness.Due(t0 + 20s, true));  // one run at a time
  liveness.Record(Outcome(ProbeResult::kSuccess));
  EXPECT_FALSE(liveness.Due(t0 + 8s, true));
  EXPECT_TRUE(liveness.Due(t0 + 9s, true));  // a period after the last run

  ProbeWorker startup(ProbeType::kStartup, p);
  startup.Reset(t0);
  EXPECT_TRUE(startup.Due(t0 + 5s, false));
  EXPECT_FALSE(startup.Due(t0 + 5s, true));  // done once it has succeeded
}

TEST(ProbeWorker, ThresholdsAndEvents) {
  api::Probe p;
  p.failure_threshold = 3;
  p.success_threshold = 2;
  ProbeWorker readiness(ProbeType::kReadiness, p);
  readiness.Reset(Clock::now());
  EXPECT_EQ(readiness.result(), ProbeResult::kFailure);  // not ready until it passes
  readiness.Record(Outcome(ProbeResult::kSuccess));
  EXPECT_EQ(readiness.result(), ProbeResult::kFailure);  // one success of two
  readiness.Record(Outcome(ProbeResult::kWarning, "Probe terminated redirects"));  // a success
  EXPECT_EQ(readiness.result(), ProbeResult::kSuccess);
  auto failed = readiness.Record(Outcome(ProbeResult::kFailure, "HTTP probe failed with statuscode: 500"));
  ASSERT_TRUE(failed.event.has_value());
  EXPECT_EQ(failed.event->reason, "Unhealthy");
  EXPECT_EQ(failed.event->message, "Readiness probe failed: HTTP probe failed with statuscode: 500");
  EXPECT_FALSE(failed.turned_failure);  // readiness never holds or kills

  ProbeWorker liveness(ProbeType::kLiveness, p);
  liveness.Reset(Clock::now());
  EXPECT_EQ(liveness.result(), ProbeResult::kSuccess);
  EXPECT_FALSE(liveness.Record(Outcome(ProbeResult::kFailure)).turned_failure);
  // An error is not counted: the run of failures goes on after it.
  auto errored = liveness.Record(Outcome(ProbeResult::kUnknown, "", "couldn't find port: http"));
  EXPECT_EQ(errored.event->message,
            "Liveness probe errored and resulted in unknown state: couldn't find port: http");
  EXPECT_FALSE(liveness.Record(Outcome(ProbeResult::kFailure)).turned_failure);
  EXPECT_TRUE(liveness.Record(Outcome(ProbeResult::kFailure)).turned_failure);
  EXPECT_TRUE(liveness.on_hold());
  EXPECT_FALSE(liveness.Due(Clock::now() + 1h, true));
  liveness.Reset(Clock::now());  // the next container
  EXPECT_FALSE(liveness.on_hold());
  EXPECT_EQ(liveness.result(), ProbeResult::kSuccess);
}

}  // namespace
}  // namespace podlimits::kubelet
