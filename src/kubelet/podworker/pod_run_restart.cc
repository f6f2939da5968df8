#include "kubelet/podworker/pod_run.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>

#include <algorithm>

#include "base/child_reaper.h"
#include "base/clock_text.h"
#include "kubelet/podworker/termination_message.h"

namespace podlimits::kubelet::pod_run {

namespace {

// How long output of an exited container is still read while something else holds its pipes
// (a hostPID container's orphans).
constexpr auto kDrainLimit = std::chrono::milliseconds(200);

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

}  // namespace

void PodRun::Drain(Slot& s) {
  if (!s.instance) return;
  auto deadline = Clock::now() + kDrainLimit;
  bool out_open = s.instance->stdout_fd >= 0, err_open = s.instance->stderr_fd >= 0;
  while ((out_open || err_open) && Clock::now() < deadline) {
    pollfd fds[2];
    int n = 0;
    if (out_open) fds[n++] = {s.instance->stdout_fd, POLLIN, 0};
    if (err_open) fds[n++] = {s.instance->stderr_fd, POLLIN, 0};
    if (poll(fds, n, 50) <= 0) continue;
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      bool is_out = fds[i].fd == s.instance->stdout_fd;
      if (!cri::PumpOnce(fds[i].fd, is_out ? *s.out : *s.err)) (is_out ? out_open : err_open) = false;
    }
  }
  s.out->Finish();
  s.err->Finish();
}

void PodRun::ScheduleRestart(Slot& s) {
  auto ran = Clock::now() - s.started_at;
  if (ran >= env_.backoff.reset_after) s.backoff = Clock::duration{0};
  s.state = SlotState::kBackOff;
  s.restart_at = Clock::now() + s.backoff;
  s.current_backoff = s.backoff;
  if (s.backoff > Clock::duration{0}) {
    Event(EventType::kWarning, "BackOff",
          fmt::format("Back-off restarting failed container {} in pod {}", s.plan->container.name,
                      plan_.PodDescription()));
  }
  s.backoff = s.backoff == Clock::duration{0}
                  ? std::chrono::duration_cast<Clock::duration>(env_.backoff.initial)
                  : std::min<Clock::duration>(s.backoff * 2, env_.backoff.max);
}

void PodRun::OnExit(Slot& s, int code) {
  Drain(s);
  s.result.exit_code = code;
  s.result.reason = code == 0                             ? "Completed"
                    : sandbox_.OomKilled(ctx_.pod_cgroup / s.plan->id) ? "OOMKilled"
                                                                       : "Error";
  s.result.message =
      TerminationMessage(s.plan->container, s.instance->termination_log, code, s.log_tail);
  TerminatedState t;
  t.exit_code = code;
  t.reason = s.result.reason;
  t.message = s.result.message;
  t.started_at = s.wall_started;
  t.finished_at = Rfc3339Now();
  t.container_id = ContainerId(s.instance->id);
  s.terminated = std::move(t);
  s.pidfd = UniqueFd();
  ChildReaper::Process().Release(s.instance->pid);
  for (auto& e : RemoveContainer(ctx_, *s.instance)) result_.teardown_errors.push_back(e);
  s.instance.reset();
  s.state = SlotState::kDone;
  s.probes.clear();
  s.hook_ticket.reset();
  s.post_start_pending = false;
  s.kill_at.reset();
  AfterExit(s, code);
}

// What restartPolicy makes of an exit (or a failed start).
void PodRun::AfterExit(Slot& s, int code) {
  if (terminating_) {
    BeginTermination();  // the sidecars may go once the last app container has
    return;
  }
  if (RestartsAfter(s, code) || s.restart_after_kill) ScheduleRestart(s);
}

// Whether restartPolicy restarts the container after it exited with `code`.
bool PodRun::RestartsAfter(const Slot& s, int code) const {
  const std::string& policy = plan_.restart_policy;
  if (s.ephemeral) return false;  // "they will not be restarted when they exit"
  if (s.sidecar) return true;  // sidecars restart whatever the pod's policy
  if (policy == "Always") return !s.init || code != 0;
  if (policy == "OnFailure") return code != 0;
  return false;
}

// Picks up where an earlier worker of this pod left the container (ContainerHistory). An
// ephemeral container that ran is done whatever it did, since none is restarted: as it ended,
// or lost (137, ContainerStatusUnknown) if it was running.
void PodRun::ApplyHistory(Slot& s) {
  auto h = std::find_if(env_.history.begin(), env_.history.end(),
                        [&](const ContainerHistory& c) { return c.name == s.plan->container.name; });
  if (h == env_.history.end()) return;
  s.result.restarts = h->restart_count;
  s.last_terminated = h->last_terminated;
  std::optional<TerminatedState> ended = h->terminated;
  if (h->was_running) ended = LostContainerState();
  if (!ended) return;  // it had not started: it starts as on a first run
  if (s.init && !s.sidecar) {
    // A new sandbox runs the init containers again; one that was running counts a restart.
    if (h->was_running) {
      ++s.result.restarts;
      s.last_terminated = ended;
    }
    return;
  }
  if (RestartsAfter(s, ended->exit_code)) {
    s.terminated = ended;  // the next start counts the restart and makes this the lastState
    s.attempts = 1;
    return;
  }
  s.terminated = ended;
  s.result.exit_code = ended->exit_code;
  s.result.reason = ended->reason;
  s.result.message = ended->message;
  s.state = SlotState::kDone;
}

// The init process of `s` exited (its pidfd turned readable, or it had been reaped before the
// pod adopted it).
void PodRun::ReapExited(Slot& s) {
  int status = 0;
  if (s.early_status) {
    status = *s.early_status;
  } else if (waitpid(s.instance->pid, &status, WNOHANG) != s.instance->pid) {
    return;  // not yet
  }
  s.early_status.reset();
  OnExit(s, ExitCode(status));
}

}  // namespace podlimits::kubelet::pod_run
