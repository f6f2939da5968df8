#include "kubelet/podworker/pod_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>

#include <algorithm>

#include "field/field.h"

namespace podlimits::kubelet::pod_run {

// The startup probe has succeeded, or the container has none.
bool StartupDone(const Slot& s) {
  for (const auto& p : s.probes) {
    if (p.type() == ProbeType::kStartup) return p.result() == ProbeResult::kSuccess;
  }
  return true;
}

// The kubelet's "started": running, its postStart hook done and its startup probe passed.
bool Started(const Slot& s) {
  return s.state == SlotState::kRunning && !s.post_start_pending && StartupDone(s);
}

ActionTarget PodRun::TargetOf(const Slot& s) {
  ActionTarget t;
  t.runtime = env_.runtime;
  t.container_id = s.instance ? s.instance->id : std::string();
  t.container = &s.plan->container;
  t.netns_pid = holder_.pid;
  if (!pod_ips_.empty()) t.pod_ip = pod_ips_.front();
  return t;
}

// The kubelet's handler runner messages for a failed hook (`Exec lifecycle hook ([sh -c exit 1])
// for Container "web" in Pod "web_default(uid)" failed - error: command 'sh -c exit 1' exited
// with 1: , message: ""`); empty when the hook succeeded. An HTTP hook fails only when no
// answer came, whatever the status.
std::string PodRun::HookFailure(const Slot& s, const api::HandlerAction& hook,
                                const ActionOutcome& outcome) const {
  const std::string& name = s.plan->container.name;
  const std::string pod = plan_.PodDescription();
  if (hook.kind == "exec") {
    if (outcome.result == ProbeResult::kSuccess) return "";
    std::string error = outcome.error;
    if (error.empty()) {
      const std::string cmd = fmt::format("{}", fmt::join(hook.command, " "));
      error = outcome.exit_code >= 0
                  ? fmt::format("command '{}' exited with {}: {}", cmd, outcome.exit_code,
                                outcome.error_output)
                  : outcome.output;
    }
    return fmt::format("Exec lifecycle hook ([{}]) for Container {} in Pod {} failed - error: {}, "
                       "message: {}",
                       fmt::join(hook.command, " "), field::GoQuote(name), field::GoQuote(pod),
                       error, field::GoQuote(outcome.output));
  }
  if (hook.kind == "httpGet") {
    if (outcome.http_status != 0) return "";  // an answer came (its body aside)
    return fmt::format("HTTP lifecycle hook ({}) for Container {} in Pod {} failed - error: {}",
                       hook.path, field::GoQuote(name), field::GoQuote(pod),
                       outcome.error.empty() ? outcome.output : outcome.error);
  }
  return "";  // sleep
}

// A failed liveness or startup probe, or postStart hook: the container is stopped with its
// grace period (preStop first). After a probe the restart was decided with the kill (a policy
// other than Never restarts it, whatever its exit code); after a hook its exit code decides.
void PodRun::KillForRestart(Slot& s, std::string message, std::optional<std::int64_t> grace) {
  const std::int64_t seconds = grace.value_or(plan_.grace_period_seconds);
  s.kill_at = Clock::now() + std::chrono::seconds(std::max<std::int64_t>(0, seconds));
  StopSlot(s, SIGTERM, std::move(message));
}

void PodRun::HookDone(Slot& s, const ActionOutcome& outcome) {
  s.hook_ticket.reset();
  const api::Container& c = s.plan->container;
  if (s.post_start_pending) {
    s.post_start_pending = false;
    if (const std::string failure = HookFailure(s, *c.post_start, outcome); !failure.empty()) {
      Event(EventType::kWarning, "FailedPostStartHook", failure);
      KillForRestart(s, "FailedPostStartHook", std::nullopt);
    }
    return;
  }
  // preStop: the container gets its SIGTERM now, within what is left of its grace period.
  if (const std::string failure = HookFailure(s, *c.pre_stop, outcome); !failure.empty()) {
    Event(EventType::kWarning, "FailedPreStopHook", failure);
  }
  Signal(s, SIGTERM);
}

void PodRun::HandleActions() {
  for (auto& [ticket, outcome] : actions_.TakeDone()) {
    for (auto& s : slots_) {
      if (s.state != SlotState::kRunning || !s.instance) continue;
      if (s.hook_ticket == ticket) {
        HookDone(s, outcome);
        break;
      }
      for (auto& p : s.probes) {
        if (p.in_flight() != ticket) continue;
        // Readiness only gates traffic, which a node without Services has none of: its
        // failures are events.
        auto recorded = p.Record(outcome);
        if (recorded.event) env_.events->Record(*recorded.event);
        if (recorded.turned_failure && !s.stop_sent && !terminating_) {
          // computePodActions: the message says whether a restart follows.
          const bool restart = s.sidecar || plan_.restart_policy != "Never";
          std::string message =
              fmt::format("Container {} failed {} probe", s.plan->container.name,
                          p.type() == ProbeType::kLiveness ? "liveness" : "startup");
          if (restart) message += ", will be restarted";
          s.restart_after_kill = restart;
          KillForRestart(s, std::move(message), p.probe().termination_grace_period_seconds);
        }
      }
    }
  }
}

void PodRun::RunDueProbes() {
  if (terminating_) return;
  const auto now = Clock::now();
  for (auto& s : slots_) {
    if (s.state != SlotState::kRunning || !s.instance || s.stop_sent || s.post_start_pending) {
      continue;
    }
    const bool startup_done = StartupDone(s);
    for (auto& p : s.probes) {
      if (!p.Due(now, startup_done)) continue;
      const auto timeout = std::chrono::seconds(std::max(1, p.probe().timeout_seconds));
      p.Submitted(actions_.Submit(p.probe().action, TargetOf(s), timeout), now);
    }
  }
}

}  // namespace podlimits::kubelet::pod_run
