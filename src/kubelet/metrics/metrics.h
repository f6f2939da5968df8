// The node's metrics, exposed in the Prometheus text format (version 0.0.4) with the kubelet's
// names and help texts: `run -o json` reads the counters, `serve` answers /metrics on its API
// port with these plus what it computes when scraped (nodeagent/node_metrics.h). The text is
// written by base/prometheus_text.h.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/prometheus_text.h"

namespace podlimits::kubelet {

class Counter {
 public:
  void Inc(std::uint64_t by = 1) { value_.fetch_add(by, std::memory_order_relaxed); }
  std::uint64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

// A histogram with fixed upper bounds (+Inf besides).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double value);
  // The _bucket (cumulative), _sum and _count lines, into the histogram family `out` is at.
  void WriteTo(PrometheusText& out) const;

 private:
  std::vector<double> bounds_;
  mutable std::mutex mu_;
  std::vector<std::uint64_t> counts_;  // per bucket, not cumulative; the last is +Inf
  double sum_ = 0;
};

// KEP-6063: counts pods whose spec.resources.limits.pid the node applied to the pod cgroup.
inline constexpr std::string_view kPodPIDLimitAppliedTotal = "kubelet_pod_pid_limit_applied_total";
inline constexpr std::string_view kEvictions = "kubelet_evictions";
inline constexpr std::string_view kPodStartDuration = "kubelet_pod_start_duration_seconds";

class MetricsRegistry {
 public:
  // Registers the node's metrics (all start at zero).
  MetricsRegistry();

  // The unlabelled counter registered under `name`; nullptr when there is none.
  Counter* Find(std::string_view name);
  Counter& PodPIDLimitApplied() { return *Find(kPodPIDLimitAppliedTotal); }
  // kubelet_evictions{eviction_signal=...}.
  Counter& Evictions(std::string_view signal);
  // kubelet_pod_start_duration_seconds.
  Histogram& PodStartDuration() { return pod_start_; }

  // "# HELP ...\n# TYPE ...\n" and the samples of each metric, sorted by name; a labelled
  // counter with no series yet prints nothing (as client_golang's vectors).
  std::string RenderPrometheusText() const;

 private:
  struct Family {
    MetricName name;
    std::string help;
    std::unique_ptr<Counter> counter;
  };
  std::map<std::string, Family, std::less<>> families_;
  mutable std::mutex mu_;  // guards evictions_
  std::map<std::string, std::unique_ptr<Counter>, std::less<>> evictions_;
  Histogram pod_start_;
};

}  // namespace podlimits::kubelet
