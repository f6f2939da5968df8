#include "kubelet/eviction/eviction_manager.h"

#include <fmt/format.h>

#include <algorithm>

namespace podlimits::kubelet {

void RankForPidPressure(std::vector<EvictionCandidate>& pods) {
  // orderedBy(priority, process): lower priority first, then the larger process count.
  std::stable_sort(pods.begin(), pods.end(),
                   [](const EvictionCandidate& a, const EvictionCandidate& b) {
                     if (a.priority != b.priority) return a.priority < b.priority;
                     return a.processes > b.processes;
                   });
}

EvictionManager::EvictionManager(EvictionSettings settings) : settings_(std::move(settings)) {
  for (const auto& t : settings_.thresholds) {
    if (t.signal == kSignalPIDAvailable) pid_thresholds_.push_back(t);
  }
}

EvictionSync EvictionManager::Synchronize(std::optional<PidObservation> observation,
                                          Clock::time_point now,
                                          std::vector<EvictionCandidate> active) {
  EvictionSync out;
  if (pid_thresholds_.empty()) return out;
  if (!observation) {
    // No stats this round: nothing new is known; the condition and thresholds stay.
    out.pid_pressure = pid_pressure_;
    return out;
  }
  last_ = observation;
  // thresholdsMet now, plus those met before that the minimum reclaim has not yet resolved.
  std::vector<std::size_t> met;
  for (std::size_t i = 0; i < pid_thresholds_.size(); ++i) {
    const auto& t = pid_thresholds_[i];
    const bool was_met = std::find(met_.begin(), met_.end(), i) != met_.end();
    if (ThresholdMet(t, observation->capacity, observation->available) ||
        (was_met && ThresholdMet(t, observation->capacity, observation->available, true))) {
      met.push_back(i);
    }
  }
  // thresholdsFirstObservedAt: kept while a threshold stays met, dropped once it is not.
  std::map<std::size_t, Clock::time_point> first;
  for (std::size_t i : met) {
    auto it = first_observed_.find(i);
    first[i] = it == first_observed_.end() ? now : it->second;
  }
  first_observed_ = std::move(first);
  // nodeConditions from every met threshold (a soft one before its grace period too), held for
  // the transition period after it was last observed.
  if (!met.empty()) pressure_last_observed_ = now;
  pid_pressure_ = pressure_last_observed_ &&
                  now - *pressure_last_observed_ < settings_.pressure_transition_period;
  out.pid_pressure = pid_pressure_;
  // thresholdsMetGracePeriod.
  std::vector<std::size_t> due;
  for (std::size_t i : met) {
    if (now - first_observed_[i] >= pid_thresholds_[i].grace_period) due.push_back(i);
  }
  met_ = due;
  if (due.empty()) return out;
  out.reclaiming = true;
  // byEvictionPriority puts hard thresholds first.
  std::stable_sort(due.begin(), due.end(), [this](std::size_t a, std::size_t b) {
    return pid_thresholds_[a].Hard() && !pid_thresholds_[b].Hard();
  });
  const EvictionThreshold& reclaim = pid_thresholds_[due.front()];
  if (active.empty()) return out;
  RankForPidPressure(active);
  // evictionMessage: the first met threshold of the resource gives the quantities.
  const EvictionThreshold& first_met = pid_thresholds_[met_.front()];
  const std::string message = fmt::format(
      "The node was low on resource: pids. Threshold quantity: {}, available: {}. ",
      ThresholdQuantityValue(first_met, observation->capacity).String(),
      resource::Quantity::NewQuantity(observation->available, resource::QuantityFormat::kDecimalSI).String());
  for (auto& pod : active) {
    if (pod.critical) continue;  // evictPod refuses critical pods and the next is tried
    std::int64_t grace = kImmediateEvictionGracePeriodSeconds;
    if (!reclaim.Hard()) {
      grace = settings_.max_pod_grace_period;
      if (pod.termination_grace_period) grace = std::min(grace, *pod.termination_grace_period);
    }
    out.evict = EvictionOrder{std::move(pod), grace, message, std::string(kSignalPIDAvailable)};
    break;
  }
  return out;
}

std::optional<std::string> EvictionManager::AdmissionRefusal(bool critical) const {
  if (!pid_pressure_ || critical) return std::nullopt;
  return std::string("The node had condition: [PIDPressure]. ");
}

}  // namespace podlimits::kubelet
