#include "kubelet/metrics/metrics.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace podlimits::kubelet {
namespace {

// kubelet metrics.PodStartDuration's buckets.
std::vector<double> PodStartBuckets() {
  return {0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900,
          1200, 1800, 2700, 3600};
}

}  // namespace

std::string PrometheusValue(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  return fmt::format("{}", v);
}

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::Observe(double value) {
  std::lock_guard lock(mu_);
  std::size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += value;
}

std::string Histogram::Render(std::string_view name) const {
  std::lock_guard lock(mu_);
  std::string out;
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    out += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name,
                       i < bounds_.size() ? PrometheusValue(bounds_[i]) : "+Inf", cumulative);
  }
  out += fmt::format("{}_sum {}\n{}_count {}\n", name, PrometheusValue(sum_), name, cumulative);
  return out;
}

MetricsRegistry::MetricsRegistry() : pod_start_(PodStartBuckets()) {
  // component-base prefixes the help text of ALPHA metrics with "[ALPHA] "; the KEP introduces
  // this counter at alpha.
  families_.emplace(
      std::string(kPodPIDLimitAppliedTotal),
      Family{"[ALPHA] Cumulative number of pods whose pod cgroup got a per-pod PID limit from "
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
  std::string out;
  {
    std::lock_guard lock(mu_);
    if (!evictions_.empty()) {
      out += fmt::format(
          "# HELP {} [ALPHA] Cumulative number of pod evictions by eviction signal\n"
          "# TYPE {} counter\n",
          kEvictions, kEvictions);
      for (const auto& [signal, counter] : evictions_) {
        out += fmt::format("{}{{eviction_signal=\"{}\"}} {}\n", kEvictions, signal,
                           counter->Value());
      }
    }
  }
  for (const auto& [name, family] : families_) {
    out += fmt::format("# HELP {} {}\n# TYPE {} counter\n{} {}\n", name, family.help, name, name,
                       family.counter->Value());
  }
  out += fmt::format(
      "# HELP {} [ALPHA] Duration in seconds from kubelet seeing a pod for the first time to the "
      "pod starting to run\n# TYPE {} histogram\n",
      kPodStartDuration, kPodStartDuration);
  out += pod_start_.Render(kPodStartDuration);
  return out;
}

}  // namespace podlimits::kubelet
