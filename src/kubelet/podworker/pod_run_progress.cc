#include "kubelet/podworker/pod_run.h"

#include <fmt/format.h>

namespace podlimits::kubelet::pod_run {

namespace {

// A whole number of seconds as Go's time.Duration prints it: 10s, 1m20s, 5m0s.
std::string GoSeconds(std::chrono::seconds d) {
  const auto total = d.count();
  if (total < 60) return fmt::format("{}s", total);
  if (total < 3600) return fmt::format("{}m{}s", total / 60, total % 60);
  return fmt::format("{}h{}m{}s", total / 3600, total % 3600 / 60, total % 60);
}

}  // namespace

std::string PodRun::Phase() const {
  // A failure_reason is set by whatever failed the pod itself (a node failure, a container
  // config error, a volume, the deadline).
  if (!result_.failure_reason.empty() || init_failed_ || !apps_started_) return "Failed";
  for (const auto& s : slots_) {
    if (!s.init && !s.ephemeral && s.result.exit_code != 0) return "Failed";
  }
  return "Succeeded";
}

PodProgress PodRun::Progress() const {
  PodProgress p;
  p.start_time = start_time_;
  p.sandbox_ready = holder_.pid > 0;
  p.sandbox_pid = holder_.pid;
  p.sandbox_id = plan_.sandbox_id;
  p.pod_ips = pod_ips_;
  p.initialized = apps_started_;
  p.finished = finished_;
  if (finished_) {
    p.final_phase = result_.phase;
    p.reason = result_.failure_reason;
    p.message = result_.failure;
  }
  for (const auto& s : slots_) {
    ContainerProgress c;
    c.name = s.plan->container.name;
    c.image = s.plan->container.image;
    if (!s.image.id.empty()) c.image_id = "sha256:" + s.image.id;
    c.init = s.init;
    c.sidecar = s.sidecar;
    c.ephemeral = s.ephemeral;
    c.restart_count = s.result.restarts;
    c.last_terminated = s.last_terminated;
    switch (s.state) {
      case SlotState::kRunning:
        c.state = ContainerProgress::State::kRunning;
        c.started_at = s.wall_started;
        if (s.instance) {
          c.container_id = ContainerId(s.instance->id);
          c.input = s.instance->input;
        }
        c.started = Started(s);
        c.ready = c.started;
        for (const auto& probe : s.probes) {
          if (probe.type() == ProbeType::kReadiness) {
            c.ready = c.started && probe.result() == ProbeResult::kSuccess;
          }
        }
        break;
      case SlotState::kBackOff:
        c.waiting_reason = "CrashLoopBackOff";
        c.waiting_message = fmt::format(
            "back-off {} restarting failed container={} pod={}",
            GoSeconds(std::chrono::duration_cast<std::chrono::seconds>(s.current_backoff)), c.name,
            plan_.PodDescription());
        break;
      case SlotState::kConfigWait:
        c.waiting_reason = s.result.reason;
        c.waiting_message = s.result.message;
        break;
      case SlotState::kDone:
        if (s.terminated) {
          c.state = ContainerProgress::State::kTerminated;
          c.terminated = s.terminated;
          c.container_id = s.terminated->container_id;
        } else if (!s.result.reason.empty()) {
          c.waiting_reason = s.result.reason;  // CreateContainerConfigError, ...
          c.waiting_message = s.result.message;
        } else {
          c.waiting_reason = s.init || apps_started_ ? "ContainerCreating" : "PodInitializing";
        }
        break;
      case SlotState::kPending:
        if (!s.image_missing.empty() && !finished_) {
          c.waiting_reason = "ErrImageNeverPull";
          c.waiting_message = s.image_missing;
          break;
        }
        c.waiting_reason = s.init || apps_started_ ? "ContainerCreating" : "PodInitializing";
        break;
    }
    p.containers.push_back(std::move(c));
  }
  return p;
}

void PodRun::Report() {
  if (!env_.on_progress) return;
  PodProgress now = Progress();
  if (reported_ && *reported_ == now) return;
  env_.on_progress(now);
  reported_ = std::move(now);
}

}  // namespace podlimits::kubelet::pod_run
