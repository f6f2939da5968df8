#include "kubelet/podworker/pod_run.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>

#include "base/child_reaper.h"
#include "kubelet/network/pod_network.h"

namespace podlimits::kubelet::pod_run {

// Waits up to `limit` for an adopted init process that was killed, and lets it go.
void ReapKilled(Slot& s, std::chrono::milliseconds limit) {
  if (!s.instance || s.instance->pid <= 0) return;
  pid_t pid = s.instance->pid;
  if (!s.early_status) {
    if (s.pidfd.valid()) {
      pollfd p{s.pidfd.get(), POLLIN, 0};
      (void)poll(&p, 1, static_cast<int>(limit.count()));
    }
    int status = 0;
    (void)waitpid(pid, &status, WNOHANG);
  }
  s.pidfd = UniqueFd();
  s.early_status.reset();
  ChildReaper::Process().Release(pid);  // if it still lives, ReapOrphans takes it later
}

// The kubelet's activeDeadlineHandler: the pod is stopped as by a stop request (grace period,
// then SIGKILL), and fails with its reason and message.
void PodRun::DeadlineExceeded() {
  const std::string message = "Pod was active on the node longer than the specified deadline";
  Event(EventType::kWarning, "DeadlineExceeded", message);
  result_.failure_reason = "DeadlineExceeded";
  result_.failure = message;
  BeginTermination();
}

void PodRun::StopSlot(Slot& s, int signal, std::string killing_message) {
  if (s.state != SlotState::kRunning || !s.instance) return;
  if (signal == SIGTERM) {
    if (s.stop_sent) return;
    s.stop_sent = true;
    Event(EventType::kNormal, "Killing",
          killing_message.empty() ? fmt::format("Stopping container {}", s.plan->container.name)
                                  : killing_message);
    // The preStop hook first; SIGTERM when it is done (HookDone), SIGKILL at the grace period's
    // end whatever it is doing.
    const api::Container& c = s.plan->container;
    if (c.pre_stop && !s.pre_stop_ran && !s.hook_ticket) {
      s.pre_stop_ran = true;
      s.hook_ticket = actions_.Submit(*c.pre_stop, TargetOf(s), std::chrono::hours(24));
      return;
    }
  }
  Signal(s, signal);
}

void PodRun::Signal(Slot& s, int signal) {
  if (s.state != SlotState::kRunning || !s.instance) return;
  // Through the runtime, as the kubelet does via CRI, and to the init process directly: it is our
  // child (we are its subreaper and have not reaped it, so the pid cannot have been reused), and
  // crun 1.8.1 reports a container whose init is alive as "stopped" once it was re-parented to
  // us, and then delivers nothing. A stray process of a hostPID container that outlives its init
  // is killed with the pod cgroup at teardown.
  (void)env_.runtime->Kill(s.instance->id, signal, /*all=*/false);
  ::kill(s.instance->pid, signal);
}

void PodRun::BeginTermination() {
  if (!terminating_) {
    terminating_ = true;
    kill_at_ =
        Clock::now() + std::chrono::seconds(std::max<std::int64_t>(0, plan_.grace_period_seconds));
    for (auto& s : slots_) {
      if (s.state == SlotState::kPending || s.state == SlotState::kBackOff ||
          s.state == SlotState::kConfigWait)
        s.state = SlotState::kDone;
    }
  }
  // App containers first; sidecars once no app container runs, in reverse order.
  bool app_running = false;
  for (auto& s : slots_) {
    if (!s.sidecar && s.state == SlotState::kRunning) {
      app_running = true;
      StopSlot(s, SIGTERM);
    }
  }
  if (app_running) return;
  for (auto it = slots_.rbegin(); it != slots_.rend(); ++it) {
    if (it->sidecar) StopSlot(*it, SIGTERM);
  }
}

void PodRun::HandleStop() {
  for (int n = env_.stop->Take(); n > 0; --n) {
    if (!terminating_ || !result_.interrupted) {
      result_.interrupted = true;
      BeginTermination();
    } else if (!env_.stop->grace_seconds()) {
      kill_at_ = Clock::now();  // a second request: no more grace
    }
  }
  // A delete's grace period shortens the pod's (kubelet: gracePeriodOverride).
  if (auto grace = env_.stop->grace_seconds(); grace && terminating_) {
    const auto by = Clock::now() + std::chrono::seconds(*grace);
    if (!kill_at_ || by < *kill_at_) kill_at_ = by;
  }
}

void PodRun::Teardown() {
  actions_.CancelAll();
  for (auto& s : slots_) {
    if (!s.instance) continue;
    for (auto& e : RemoveContainer(ctx_, *s.instance)) result_.teardown_errors.push_back(e);
    ReapKilled(s, std::chrono::seconds(1));
    s.instance.reset();
  }
  // The holder once no container can need its namespaces any more.
  for (auto& e : volumes_.TearDown()) result_.teardown_errors.push_back(e);
  ctx_.volumes = nullptr;
  // The network while its namespace still exists; a record left by a failed DEL keeps the
  // pod's state for a later cleanup.
  if (env_.network) {
    if (auto down = TearDownPodNetwork(plan_.pod_dir, env_.network->bin_dirs(), holder_.pid > 0);
        !down) {
      result_.teardown_errors.push_back(down.error().Message());
    }
    // pod_ips_ stay: a finished pod's status keeps the addresses it had, as the kubelet's
    // keeps the last sandbox's.
  }
  StopPodHolder(holder_);
  ctx_.sandbox_pid = 0;
  // A container that could not be removed keeps the pod's state (its record) for a later run.
  const bool keep_state = !result_.teardown_errors.empty();
  for (auto& e : sandbox_.Teardown(keep_state)) result_.teardown_errors.push_back(e);
  ChildReaper::Process().ReapOrphans();
}

}  // namespace podlimits::kubelet::pod_run
