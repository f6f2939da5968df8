// One probe of one container, as the kubelet's prober worker runs it (pkg/kubelet/prober/
// worker.go): when it is due, and what a run's outcome makes of the probe's result.
//
//   - Nothing before initialDelaySeconds from the container's start, then every periodSeconds,
//     one run at a time.
//   - Liveness and readiness wait until the startup probe has succeeded; the startup probe stops
//     once it has.
//   - The result changes only after failureThreshold consecutive failures or successThreshold
//     consecutive successes. It starts as Success for liveness, Failure for readiness (not
//     ready) and Unknown for startup.
//   - A warning counts as a success; an error is not counted at all.
//   - Every failed run is an `Unhealthy` Warning event (`Liveness probe failed: ...`), a warning
//     a `ProbeWarning`, an error `Unhealthy` (`... probe errored and resulted in unknown
//     state: ...`).
//   - When liveness or startup turns to Failure the worker holds (runs no more) until the next
//     container; the caller kills the container with `Container web failed liveness probe, will
//     be restarted`.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "api/objects.h"
#include "kubelet/events/events.h"
#include "kubelet/prober/handler_runner.h"

namespace podlimits::kubelet {

enum class ProbeType { kLiveness, kReadiness, kStartup };

std::string_view ProbeTypeName(ProbeType type);  // "Liveness", "Readiness", "Startup"

class ProbeWorker {
 public:
  using Clock = std::chrono::steady_clock;

  ProbeWorker(ProbeType type, const api::Probe& probe) : type_(type), probe_(probe) {}

  // A new container instance started at `started_at`: the result and counts start over.
  void Reset(Clock::time_point started_at);

  // Whether a run should start now. `startup_done`: the container's startup probe has
  // succeeded (or it has none).
  bool Due(Clock::time_point now, bool startup_done) const;
  // When the next run could be due (for the caller's poll timeout).
  Clock::time_point NextDue() const { return next_; }
  void Submitted(std::uint64_t ticket, Clock::time_point now);
  std::optional<std::uint64_t> in_flight() const { return in_flight_; }

  struct Recorded {
    std::optional<Event> event;
    bool turned_failure = false;  // liveness/startup just reached its failure threshold
  };
  Recorded Record(const ActionOutcome& outcome);

  ProbeType type() const { return type_; }
  const api::Probe& probe() const { return probe_; }
  ProbeResult result() const { return result_; }
  bool on_hold() const { return on_hold_; }

 private:
  ProbeType type_;
  const api::Probe& probe_;
  ProbeResult result_ = ProbeResult::kUnknown;
  std::optional<ProbeResult> last_;  // the previous run's (counted) outcome
  int run_ = 0;                      // how many consecutive runs had it
  bool on_hold_ = false;
  Clock::time_point next_{};
  std::optional<std::uint64_t> in_flight_;
};

}  // namespace podlimits::kubelet
