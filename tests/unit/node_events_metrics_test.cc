#include <gtest/gtest.h>

#include <thread>

#include "kubelet/events/events.h"
#include "kubelet/metrics/metrics.h"

namespace podlimits::kubelet {
namespace {

TEST(NodeEvents, Lines) {
  EXPECT_EQ(FormatEventLine({EventType::kWarning, "PIDLimitCapped", "capped"}),
            "  Warning  PIDLimitCapped  capped");
  EXPECT_EQ(FormatEventLine({EventType::kNormal, "Started", "Started container app"}),
            "  Normal  Started  Started container app");
}

TEST(NodeEvents, Table) {
  EXPECT_EQ(RenderEventsTable({}), "Events:  <none>\n");
  std::vector<Event> events = {
      {EventType::kNormal, "Created", "Created container app"},
      {EventType::kWarning, "PIDLimitCapped",
       "Requested PID limit 8192 exceeds node podPidsLimit 4096; effective limit capped to 4096"},
  };
  EXPECT_EQ(RenderEventsTable(events),
            "Events:\n"
            "  Type     Reason          Message\n"
            "  ----     ------          -------\n"
            "  Normal   Created         Created container app\n"
            "  Warning  PIDLimitCapped  Requested PID limit 8192 exceeds node podPidsLimit 4096; "
            "effective limit capped to 4096\n");
}

TEST(NodeEvents, RecorderKeepsOrderAndFeedsTheSink) {
  std::vector<std::string> lines;
  EventRecorder recorder([&](const Event& e) { lines.push_back(FormatEventLine(e)); });
  recorder.Eventf(EventType::kNormal, "Pulled", "image present");
  recorder.Record({EventType::kWarning, "UlimitClamped", "granted 20000"});
  ASSERT_EQ(recorder.Events().size(), 2u);
  EXPECT_EQ(recorder.Events()[1].reason, "UlimitClamped");
  EXPECT_EQ(lines, (std::vector<std::string>{"  Normal  Pulled  image present",
                                             "  Warning  UlimitClamped  granted 20000"}));
}

TEST(NodeEvents, RecorderIsThreadSafe) {
  EventRecorder recorder;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) recorder.Eventf(EventType::kNormal, "Tick", "tick");
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(recorder.Events().size(), 400u);
}

TEST(NodeMetrics, PodPIDLimitAppliedInPrometheusText) {
  MetricsRegistry registry;
  EXPECT_EQ(registry.Find("no_such_metric"), nullptr);
  const std::string header =
      "# HELP kubelet_pod_pid_limit_applied_total [ALPHA] Cumulative number of pods whose pod "
      "cgroup got a per-pod PID limit from spec.resources.limits.pid.\n"
      "# TYPE kubelet_pod_pid_limit_applied_total counter\n";
  const std::string text = registry.RenderPrometheusText();
  EXPECT_TRUE(text.starts_with(header + "kubelet_pod_pid_limit_applied_total 0\n")) << text;
  // No eviction yet: the labelled counter prints nothing, as client_golang's vectors.
  EXPECT_EQ(text.find("kubelet_evictions"), std::string::npos);
  registry.PodPIDLimitApplied().Inc();
  registry.Find("kubelet_pod_pid_limit_applied_total")->Inc(2);
  EXPECT_EQ(registry.PodPIDLimitApplied().Value(), 3u);
  EXPECT_NE(registry.RenderPrometheusText().find(header + "kubelet_pod_pid_limit_applied_total 3\n"),
            std::string::npos);
}

TEST(NodeMetrics, EvictionsBySignalSortedBeforeTheCounters) {
  MetricsRegistry registry;
  registry.Evictions("pid.available").Inc();
  registry.Evictions("pid.available").Inc();
  const std::string text = registry.RenderPrometheusText();
  EXPECT_TRUE(text.starts_with(
      "# HELP kubelet_evictions [ALPHA] Cumulative number of pod evictions by eviction signal\n"
      "# TYPE kubelet_evictions counter\n"
      "kubelet_evictions{eviction_signal=\"pid.available\"} 2\n"))
      << text;
}

TEST(NodeMetrics, PodStartDurationHistogramIsCumulative) {
  MetricsRegistry registry;
  registry.PodStartDuration().Observe(0.4);
  registry.PodStartDuration().Observe(0.5);  // le is inclusive
  registry.PodStartDuration().Observe(7);
  registry.PodStartDuration().Observe(5000);
  const std::string text = registry.RenderPrometheusText();
  EXPECT_NE(text.find("# TYPE kubelet_pod_start_duration_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("kubelet_pod_start_duration_seconds_bucket{le=\"0.5\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kubelet_pod_start_duration_seconds_bucket{le=\"6\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("kubelet_pod_start_duration_seconds_bucket{le=\"8\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("kubelet_pod_start_duration_seconds_bucket{le=\"3600\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("kubelet_pod_start_duration_seconds_bucket{le=\"+Inf\"} 4\n"),
            std::string::npos);
  EXPECT_NE(text.find("kubelet_pod_start_duration_seconds_sum 5007.9\n"), std::string::npos);
  EXPECT_NE(text.find("kubelet_pod_start_duration_seconds_count 4\n"), std::string::npos);
}

}  // namespace
}  // namespace podlimits::kubelet
