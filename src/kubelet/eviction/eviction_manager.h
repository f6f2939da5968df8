// The kubelet's eviction manager for the node's process IDs (seed 002; pkg/kubelet/eviction,
// reference/quantity_validation.md §4.3-4.4), as a state machine the node agent drives:
//
//   observe    pid.available = min(pid_max, threads-max) − the node's tasks (/proc/loadavg),
//              on the housekeeping interval and whenever a pod is admitted
//   thresholds evictionHard / evictionSoft entries for pid.available (others are parsed but
//              never observed here, as a kubelet without that signal's stats leaves them);
//              a threshold met once stays met until available ≥ threshold + minimum reclaim
//   condition  PIDPressure while any pid threshold (hard, or soft before its grace period) was
//              met within evictionPressureTransitionPeriod
//   admission  under PIDPressure every pod but a critical one is refused: reason Evicted,
//              message "The node had condition: [PIDPressure]. "
//   eviction   once a threshold is met past its grace period: the active pods ranked by priority
//              (lower first), then by process count (more first); the first that is not
//              critical is evicted, one per synchronize, with grace 1 s (hard) or
//              min(evictionMaxPodGracePeriod, the pod's terminationGracePeriodSeconds) (soft)
//
// Critical pods: static and mirror pods, and priority ≥ 2000000000 (IsCriticalPod).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kubelet/eviction/eviction_threshold.h"

namespace podlimits::kubelet {

// scheduling.SystemCriticalPriority.
inline constexpr std::int64_t kSystemCriticalPriority = 2000000000;
// The grace period of an eviction for a hard threshold (immediateEvictionGracePeriodSeconds).
inline constexpr std::int64_t kImmediateEvictionGracePeriodSeconds = 1;
// The eviction's reason, on the pod's status and its event, and on a refused admission.
inline constexpr std::string_view kEvictedReason = "Evicted";

struct PidObservation {
  std::int64_t capacity = 0;   // min(pid_max, threads-max)
  std::int64_t available = 0;  // capacity − tasks
};

struct EvictionCandidate {
  std::string uid, namespace_, name;
  std::int64_t priority = 0;      // spec.priority, 0 when unset
  std::int64_t processes = 0;     // pids.current of the pod cgroup
  bool critical = false;          // IsCriticalPod
  std::optional<std::int64_t> termination_grace_period;  // spec.terminationGracePeriodSeconds
};

struct EvictionOrder {
  EvictionCandidate pod;
  std::int64_t grace_period_seconds = 0;
  // "The node was low on resource: pids. Threshold quantity: 1k, available: 900. "
  std::string message;
  std::string signal;  // "pid.available", the kubelet_evictions label
};

struct EvictionSync {
  bool pid_pressure = false;  // the PIDPressure condition after this synchronize
  // A threshold is met past its grace period: the node's EvictionThresholdMet event
  // ("Attempting to reclaim pids") is due.
  bool reclaiming = false;
  std::optional<EvictionOrder> evict;  // at most one pod
};

struct EvictionSettings {
  std::vector<EvictionThreshold> thresholds;  // hard and soft, any signal
  std::chrono::nanoseconds pressure_transition_period = std::chrono::minutes(5);
  std::int64_t max_pod_grace_period = 0;
};

// The pods ranked as rankPIDPressure ranks them (stable).
void RankForPidPressure(std::vector<EvictionCandidate>& pods);

class EvictionManager {
 public:
  using Clock = std::chrono::steady_clock;

  explicit EvictionManager(EvictionSettings settings);

  // True when any pid.available threshold is configured (otherwise nothing is ever observed).
  bool Observes() const { return !pid_thresholds_.empty(); }

  // One synchronize: `observation` nullopt when the signal could not be read (the thresholds'
  // state is kept as it was, as upstream does without stats). `active`: the pods that have
  // anything running, in any order.
  EvictionSync Synchronize(std::optional<PidObservation> observation, Clock::time_point now,
                           std::vector<EvictionCandidate> active);

  bool UnderPidPressure() const { return pid_pressure_; }
  // The admission refusal of a pod (nullopt: admitted), "The node had condition: [PIDPressure]. ".
  std::optional<std::string> AdmissionRefusal(bool critical) const;
  std::optional<PidObservation> last_observation() const { return last_; }

 private:
  EvictionSettings settings_;
  std::vector<EvictionThreshold> pid_thresholds_;
  std::map<std::size_t, Clock::time_point> first_observed_;  // index into pid_thresholds_
  std::vector<std::size_t> met_;                             // met past grace, last sync
  std::optional<Clock::time_point> pressure_last_observed_;
  bool pid_pressure_ = false;
  std::optional<PidObservation> last_;
};

}  // namespace podlimits::kubelet
