// The eviction manager for pid.available (kubelet/eviction/eviction_manager.h): thresholds met and
// resolved (minimum reclaim), the PIDPressure condition and its transition period, soft grace
// periods, ranking, critical pods, grace periods of the kill, the message and admission.
#include <gtest/gtest.h>

#include "kubelet/eviction/eviction_manager.h"

namespace podlimits::kubelet {
namespace {

using namespace std::chrono_literals;
using Clock = EvictionManager::Clock;

EvictionThreshold Threshold(const char* value, std::chrono::nanoseconds grace = 0ns,
                            const char* min_reclaim = nullptr) {
  auto t = ParseThresholdStatement(kSignalPIDAvailable, value);
  EXPECT_TRUE(t && *t);
  EvictionThreshold out = **t;
  out.grace_period = grace;
  if (min_reclaim != nullptr) {
    auto r = ParseMinimumReclaims({{std::string(kSignalPIDAvailable), min_reclaim}});
    EXPECT_TRUE(r);
    out.min_reclaim = r->begin()->second;
  }
  return out;
}

EvictionManager Manager(std::vector<EvictionThreshold> thresholds,
                        std::chrono::nanoseconds transition = 5min, std::int64_t max_grace = 0) {
  return EvictionManager(EvictionSettings{std::move(thresholds), transition, max_grace});
}

EvictionCandidate Pod(const char* name, std::int64_t priority, std::int64_t processes,
                      bool critical = false) {
  EvictionCandidate c;
  c.uid = std::string("uid-") + name;
  c.namespace_ = "default";
  c.name = name;
  c.priority = priority;
  c.processes = processes;
  c.critical = critical;
  return c;
}

TEST(EvictionManager, NothingObservedWithoutAPidThreshold) {
  auto m = Manager({});
  EXPECT_FALSE(m.Observes());
  auto memory = ParseThresholdStatement("memory.available", "100Mi");
  auto other = Manager({**memory});
  EXPECT_FALSE(other.Observes());
  auto s = other.Synchronize(PidObservation{1000, 0}, Clock::now(), {Pod("a", 0, 10)});
  EXPECT_FALSE(s.pid_pressure);
  EXPECT_FALSE(s.evict);
}

TEST(EvictionManager, HardThresholdEvictsTheLowestPriorityThenTheLargest) {
  auto m = Manager({Threshold("1000")});
  const auto t0 = Clock::now();
  auto calm = m.Synchronize(PidObservation{4194304, 5000}, t0, {Pod("a", 0, 10)});
  EXPECT_FALSE(calm.pid_pressure);
  EXPECT_FALSE(calm.reclaiming);
  EXPECT_EQ(m.AdmissionRefusal(false), std::nullopt);

  auto s = m.Synchronize(PidObservation{4194304, 900}, t0 + 10s,
                         {Pod("small", 0, 5), Pod("bomb", 0, 3000), Pod("important", 100, 9000),
                          Pod("system", 2000000000, 9999, true)});
  EXPECT_TRUE(s.pid_pressure);
  EXPECT_TRUE(s.reclaiming);
  ASSERT_TRUE(s.evict);
  EXPECT_EQ(s.evict->pod.name, "bomb");
  EXPECT_EQ(s.evict->grace_period_seconds, kImmediateEvictionGracePeriodSeconds);
  EXPECT_EQ(s.evict->signal, "pid.available");
  // The Quantity strings upstream prints: "1000" canonicalises to 1k.
  EXPECT_EQ(s.evict->message,
            "The node was low on resource: pids. Threshold quantity: 1k, available: 900. ");
  EXPECT_EQ(m.AdmissionRefusal(false), "The node had condition: [PIDPressure]. ");
  EXPECT_EQ(m.AdmissionRefusal(true), std::nullopt) << "critical pods are always admitted";
}

TEST(EvictionManager, CriticalPodsAreNeverEvicted) {
  auto m = Manager({Threshold("1000")});
  auto s = m.Synchronize(PidObservation{100000, 10}, Clock::now(),
                         {Pod("static", 0, 50000, true), Pod("mirror", -5, 50000, true)});
  EXPECT_TRUE(s.pid_pressure);
  EXPECT_TRUE(s.reclaiming);
  EXPECT_FALSE(s.evict);
  auto t = m.Synchronize(PidObservation{100000, 10}, Clock::now(),
                         {Pod("static", 0, 50000, true), Pod("plain", 10, 1)});
  ASSERT_TRUE(t.evict);
  EXPECT_EQ(t.evict->pod.name, "plain");
}

TEST(EvictionManager, PercentageThresholdPrintsABinarySIQuantity) {
  auto m = Manager({Threshold("5%")});
  // 5% of 4194304 = 209715.2, truncated; 209715 is not a multiple of 1024.
  auto s = m.Synchronize(PidObservation{4194304, 209000}, Clock::now(), {Pod("a", 0, 1)});
  ASSERT_TRUE(s.evict);
  EXPECT_EQ(s.evict->message,
            "The node was low on resource: pids. Threshold quantity: 209715, available: 209k. ");
  auto quiet = Manager({Threshold("5%")});
  EXPECT_FALSE(quiet.Synchronize(PidObservation{4194304, 209716}, Clock::now(), {}).pid_pressure);
}

TEST(EvictionManager, PressureHoldsForTheTransitionPeriod) {
  auto m = Manager({Threshold("1000")}, 30s);
  const auto t0 = Clock::now();
  EXPECT_TRUE(m.Synchronize(PidObservation{100000, 500}, t0, {}).pid_pressure);
  // Recovered, but last observed 10 s ago: still under pressure, nothing to evict.
  auto s = m.Synchronize(PidObservation{100000, 50000}, t0 + 10s, {Pod("a", 0, 1)});
  EXPECT_TRUE(s.pid_pressure);
  EXPECT_FALSE(s.reclaiming);
  EXPECT_FALSE(s.evict);
  EXPECT_TRUE(m.AdmissionRefusal(false));
  EXPECT_TRUE(m.Synchronize(PidObservation{100000, 50000}, t0 + 29s, {}).pid_pressure);
  EXPECT_FALSE(m.Synchronize(PidObservation{100000, 50000}, t0 + 30s, {}).pid_pressure);
  EXPECT_FALSE(m.AdmissionRefusal(false));
}

TEST(EvictionManager, MinimumReclaimKeepsAMetThresholdUntilReclaimed) {
  auto m = Manager({Threshold("1000", 0ns, "500")}, 0s);
  const auto t0 = Clock::now();
  EXPECT_TRUE(m.Synchronize(PidObservation{100000, 900}, t0, {Pod("a", 0, 1)}).evict);
  // Above the threshold but below threshold + minimum reclaim: still met, still evicting.
  auto s = m.Synchronize(PidObservation{100000, 1200}, t0 + 1s, {Pod("b", 0, 1)});
  EXPECT_TRUE(s.reclaiming);
  ASSERT_TRUE(s.evict);
  EXPECT_EQ(s.evict->pod.name, "b");
  // Reclaimed: 1500 is not below 1000 + 500.
  auto done = m.Synchronize(PidObservation{100000, 1500}, t0 + 2s, {Pod("c", 0, 1)});
  EXPECT_FALSE(done.reclaiming);
  EXPECT_FALSE(done.evict);
  // A threshold not met before ignores the minimum reclaim.
  auto fresh = Manager({Threshold("1000", 0ns, "500")}, 0s);
  EXPECT_FALSE(fresh.Synchronize(PidObservation{100000, 1200}, t0, {Pod("a", 0, 1)}).reclaiming);
}

TEST(EvictionManager, SoftThresholdWaitsForItsGracePeriod) {
  auto m = Manager({Threshold("2000", 30s)}, 5min, /*max_grace=*/20);
  const auto t0 = Clock::now();
  auto first = m.Synchronize(PidObservation{100000, 1500}, t0, {Pod("a", 0, 10)});
  EXPECT_TRUE(first.pid_pressure) << "the condition does not wait for the grace period";
  EXPECT_FALSE(first.reclaiming);
  EXPECT_FALSE(first.evict);
  EXPECT_FALSE(m.Synchronize(PidObservation{100000, 1500}, t0 + 29s, {Pod("a", 0, 10)}).evict);
  EvictionCandidate quick = Pod("quick", 0, 10);
  quick.termination_grace_period = 5;
  auto s = m.Synchronize(PidObservation{100000, 1500}, t0 + 30s, {Pod("slow", 0, 5), quick});
  ASSERT_TRUE(s.evict);
  EXPECT_EQ(s.evict->pod.name, "quick");
  EXPECT_EQ(s.evict->grace_period_seconds, 5) << "min(evictionMaxPodGracePeriod, the pod's)";
  EvictionCandidate patient = Pod("patient", 0, 100);
  patient.termination_grace_period = 60;
  auto t = m.Synchronize(PidObservation{100000, 1500}, t0 + 31s, {patient});
  ASSERT_TRUE(t.evict);
  EXPECT_EQ(t.evict->grace_period_seconds, 20);
  // Recovering resets the grace period's clock.
  m.Synchronize(PidObservation{100000, 5000}, t0 + 40s, {});
  EXPECT_FALSE(m.Synchronize(PidObservation{100000, 1500}, t0 + 41s, {Pod("a", 0, 1)}).evict);
}

TEST(EvictionManager, HardBeforeSoftWhenBothAreMet) {
  auto m = Manager({Threshold("3000", 10s), Threshold("1000")}, 5min, 30);
  auto s = m.Synchronize(PidObservation{100000, 500}, Clock::now(), {Pod("a", 0, 1)});
  ASSERT_TRUE(s.evict);
  EXPECT_EQ(s.evict->grace_period_seconds, kImmediateEvictionGracePeriodSeconds);
}

TEST(EvictionManager, AnUnreadableSignalKeepsTheState) {
  auto m = Manager({Threshold("1000")});
  EXPECT_TRUE(m.Synchronize(PidObservation{100000, 10}, Clock::now(), {}).pid_pressure);
  auto s = m.Synchronize(std::nullopt, Clock::now(), {Pod("a", 0, 1)});
  EXPECT_TRUE(s.pid_pressure);
  EXPECT_FALSE(s.evict);
}

TEST(EvictionManager, RankIsStable) {
  std::vector<EvictionCandidate> pods = {Pod("a", 0, 10), Pod("b", 0, 10), Pod("c", -1, 1),
                                         Pod("d", 0, 11)};
  RankForPidPressure(pods);
  std::vector<std::string> names;
  for (const auto& p : pods) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"c", "d", "a", "b"}));
}

TEST(EvictionConfig, GracePeriodsAndMinimumReclaims) {
  auto grace = ParseGracePeriods({{"pid.available", "1m30s"}});
  ASSERT_TRUE(grace);
  EXPECT_EQ(grace->at("pid.available"), 90s);
  struct Case {
    std::map<std::string, std::string> grace, reclaim;
    const char* error;
  };
  const Case cases[] = {
      {{{"pids.available", "1s"}}, {}, "unsupported eviction signal pids.available"},
      {{{"pid.available", "1"}}, {}, "time: missing unit in duration \"1\""},
      {{{"pid.available", "-1s"}},
       {},
       "invalid eviction grace period specified: -1s, must be a positive value"},
      {{}, {{"pid.available", "0%"}}, "eviction percentage minimum reclaim pid.available must be "
                                      "positive: 0%"},
      {{}, {{"pid.available", "-5"}}, "negative eviction minimum reclaim specified for pid.available"},
      {{}, {{"nodefs.bogus", "5"}}, "unsupported eviction signal nodefs.bogus"},
  };
  for (const auto& c : cases) {
    auto g = ParseGracePeriods(c.grace);
    auto r = ParseMinimumReclaims(c.reclaim);
    const std::string got = !g ? g.error().Message() : !r ? r.error().Message() : "";
    EXPECT_EQ(got, c.error);
  }
  auto reclaim = ParseMinimumReclaims({{"pid.available", "10%"}, {"memory.available", "0"}});
  ASSERT_TRUE(reclaim);
  EXPECT_FLOAT_EQ(reclaim->at("pid.available").percentage, 0.1f);
}

}  // namespace
}  // namespace podlimits::kubelet
