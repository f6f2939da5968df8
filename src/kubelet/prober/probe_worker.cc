#include "kubelet/prober/probe_worker.h"

#include <fmt/format.h>

namespace podlimits::kubelet {

std::string_view ProbeTypeName(ProbeType type) {
  switch (type) {
    case ProbeType::kLiveness:
      return "Liveness";
    case ProbeType::kReadiness:
      return "Readiness";
    case ProbeType::kStartup:
      return "Startup";
  }
  return "";
}

void ProbeWorker::Reset(Clock::time_point started_at) {
  result_ = type_ == ProbeType::kLiveness    ? ProbeResult::kSuccess
            : type_ == ProbeType::kReadiness ? ProbeResult::kFailure
                                             : ProbeResult::kUnknown;
  last_.reset();
  run_ = 0;
  on_hold_ = false;
  in_flight_.reset();
  next_ = started_at + std::chrono::seconds(probe_.initial_delay_seconds);
}

bool ProbeWorker::Due(Clock::time_point now, bool startup_done) const {
  if (in_flight_ || on_hold_ || now < next_) return false;
  if (type_ == ProbeType::kStartup) return !startup_done;
  return startup_done;
}

void ProbeWorker::Submitted(std::uint64_t ticket, Clock::time_point now) {
  in_flight_ = ticket;
  next_ = now + std::chrono::seconds(std::max(1, probe_.period_seconds));
}

ProbeWorker::Recorded ProbeWorker::Record(const ActionOutcome& outcome) {
  in_flight_.reset();
  Recorded out;
  const std::string_view name = ProbeTypeName(type_);
  if (outcome.result == ProbeResult::kUnknown) {
    out.event = Event{EventType::kWarning, "Unhealthy",
                      fmt::format("{} probe errored and resulted in unknown state: {}", name,
                                  outcome.error)};
    return out;  // thrown away: neither a success nor a failure
  }
  ProbeResult counted = outcome.result;
  if (counted == ProbeResult::kWarning) {
    out.event = Event{EventType::kWarning, "ProbeWarning",
                      fmt::format("{} probe warning: {}", name, outcome.output)};
    counted = ProbeResult::kSuccess;
  } else if (counted == ProbeResult::kFailure) {
    out.event = Event{EventType::kWarning, "Unhealthy",
                      fmt::format("{} probe failed: {}", name, outcome.output)};
  }
  run_ = last_ == counted ? run_ + 1 : 1;
  last_ = counted;
  if ((counted == ProbeResult::kFailure && run_ < probe_.failure_threshold) ||
      (counted == ProbeResult::kSuccess && run_ < probe_.success_threshold)) {
    return out;  // not enough in a row to change the result
  }
  result_ = counted;
  if (counted == ProbeResult::kFailure && type_ != ProbeType::kReadiness) {
    on_hold_ = true;
    run_ = 0;
    out.turned_failure = true;
  }
  return out;
}

}  // namespace podlimits::kubelet
