// The node's counters, exposed in the Prometheus text format (version 0.0.4).
//
// podlimits serves no HTTP endpoint; `run -o json` and tests read the text. One counter family
// exists today (KEP-6063's kubelet_pod_pid_limit_applied_total), so the exposition is written by
// hand rather than pulling in a client library for it.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace podlimits::kubelet {

class Counter {
 public:
  void Inc(std::uint64_t by = 1) { value_.fetch_add(by, std::memory_order_relaxed); }
  std::uint64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

// KEP-6063: counts pods whose spec.resources.limits.pid the node applied to the pod cgroup.
inline constexpr std::string_view kPodPIDLimitAppliedTotal = "kubelet_pod_pid_limit_applied_total";

class MetricsRegistry {
 public:
  // Registers the node's counters (all start at zero).
  MetricsRegistry();

  // The counter registered under `name`; nullptr when there is none.
  Counter* Find(std::string_view name);
  Counter& PodPIDLimitApplied() { return *Find(kPodPIDLimitAppliedTotal); }

  // "# HELP ...\n# TYPE ... counter\nNAME VALUE\n" for each counter, sorted by name.
  std::string RenderPrometheusText() const;

 private:
  struct Family {
    std::string help;
    std::unique_ptr<Counter> counter;
  };
  std::map<std::string, Family, std::less<>> families_;
};

}  // namespace podlimits::kubelet
