#include "kubelet/metrics/metrics.h"

namespace podlimits::kubelet {
namespace {

// kubelet metrics.PodStartDuration's buckets.
std::vector<double> PodStartBuckets() {
  return {0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900,
          1200, 1800, 2700, 3600};
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::Observe(double value) {
  std::lock_guard lock(mu_);
  std::size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += value;
}

void Histogram::WriteTo(PrometheusText& out) const {
  std::lock_guard lock(mu_);
  out.Histogram({}, bounds_, counts_, sum_);
}

MetricsRegistry::MetricsRegistry() : pod_start_(PodStartBuckets()) {
  // component-base prefixes the help text of ALPHA metrics with "[ALPHA] "; the KEP introduces
  // this counter at alpha.
  families_.emplace(
      std::string(kPodPIDLimitAppliedTotal),
      Family{kPodPIDLimitAppliedTotal,
             "[ALPHA] Cumulative number of pods whose pod cgroup got a per-pod PID limit from "
             "spec.resources.limits.pid.",
             std::make_unique<Counter>()});
}

Counter* MetricsRegistry::Find(std::string_view name) {
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.counter.get();
}

Counter& MetricsRegistry::Evictions(std::string_view signal) {
  std::lock_guard lock(mu_);
  auto it = evictions_.find(signal);
  if (it == evictions_.end()) {
    it = evictions_.emplace(std::string(signal), std::make_unique<Counter>()).first;
  }
  return *it->second;
}

std::string MetricsRegistry::RenderPrometheusText() const {
  PrometheusText out;
  {
    std::lock_guard lock(mu_);
    if (!evictions_.empty()) {
      out.Family(kEvictions, "[ALPHA] Cumulative number of pod evictions by eviction signal",
                 MetricType::kCounter);
      for (const auto& [signal, counter] : evictions_) {
        out.Sample({{"eviction_signal", signal}}, counter->Value());
      }
    }
  }
  for (const auto& [name, family] : families_) {
    out.Family(family.name, family.help, MetricType::kCounter);
    out.Sample(family.counter->Value());
  }
  out.Family(kPodStartDuration,
             "[ALPHA] Duration in seconds from kubelet seeing a pod for the first time to the pod "
             "starting to run",
             MetricType::kHistogram);
  pod_start_.WriteTo(out);
  return std::move(out).text();
}

}  // namespace podlimits::kubelet
