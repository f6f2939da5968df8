// Internal to the pod worker: the state of one RunPod call (pod_runner.h) and its methods, which
// live in one file per concern:
//
//   pod_run.cc              the poll loop, moving the pod forward (Advance), the loop's timeout
//   pod_run_start.cc        images, the sandbox (cgroup, holder, network, volumes), starting a
//                           container and what a failed start or config means
//   pod_run_restart.cc      a container's exit, restartPolicy, the restart back-off, the history
//                           of an earlier worker
//   pod_run_termination.cc  stop requests, the grace period, SIGTERM/SIGKILL, the deadline and
//                           teardown
//   pod_run_probes.cc       probes and lifecycle hooks (run off the pod's thread by the
//                           ActionExecutor) and what their results do to the container
//   pod_run_progress.cc     the pod's phase and its progress as the status reads it
//   pod_run_spec_update.cc  a spec update of the running pod: new images, a new deadline, new
//                           ephemeral containers
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/unique_fd.h"
#include "cri/container_output.h"
#include "image/store.h"
#include "kubelet/prober/action_executor.h"
#include "kubelet/podworker/container_lifecycle.h"
#include "kubelet/podworker/pod_holder.h"
#include "kubelet/plan/pod_plan.h"
#include "kubelet/podworker/pod_progress.h"
#include "kubelet/podworker/pod_runner.h"
#include "kubelet/podworker/pod_sandbox.h"
#include "kubelet/volumes/pod_volumes.h"
#include "kubelet/prober/probe_worker.h"

namespace podlimits::kubelet::pod_run {

using Clock = std::chrono::steady_clock;

// kConfigWait: CreateContainerConfigError on a node that retries it (config_retry).
enum class SlotState { kPending, kRunning, kBackOff, kConfigWait, kDone };

struct Slot {
  const ContainerPlan* plan = nullptr;
  image::Image image;
  bool init = false;
  bool sidecar = false;
  bool ephemeral = false;  // added by a spec update; never restarted, no part of the phase
  // An ephemeral container the pod had when this worker took it over, never started: it starts
  // at the sync after the one that started the pod's first containers (computePodActions
  // starts none on the sync that creates the sandbox), so a target has begun to run.
  bool after_pod_start = false;
  SlotState state = SlotState::kPending;
  // Why the image is not there (ErrImageNeverPull's message) while the pod waits for it.
  std::string image_missing;
  std::optional<ContainerInstance> instance;
  // The init process while it runs: a pidfd that turns readable when it exits, and its wait
  // status if it had already been reaped as an orphan when the pod adopted it.
  UniqueFd pidfd;
  std::optional<int> early_status;
  std::unique_ptr<cri::OutputSink> out;
  std::unique_ptr<cri::OutputSink> err;
  Clock::time_point started_at;
  Clock::time_point restart_at;
  Clock::duration backoff{0};
  Clock::duration current_backoff{0};  // what the pending restart waits
  bool stop_sent = false;
  int attempts = 0;  // how often it was started (or tried to be)
  ContainerRunResult result;
  // Probes and hooks of the running instance (action_executor.h runs them).
  std::vector<ProbeWorker> probes;
  std::optional<std::uint64_t> hook_ticket;  // the postStart or preStop hook running now
  bool post_start_pending = false;
  bool pre_stop_ran = false;
  // This container alone must be gone by then (a failed probe or postStart hook stops it with
  // its own grace period); the pod's termination has kill_at_.
  std::optional<Clock::time_point> kill_at;
  // The last bytes the running instance wrote (stdout and stderr interleaved), for
  // terminationMessagePolicy FallbackToLogsOnError.
  std::string log_tail;
  // Killed for a failed probe or hook under a policy that restarts: it restarts however it
  // exits (computePodActions decides the restart when it kills).
  bool restart_after_kill = false;
  // For the pod's status: when the running instance started, how the last run ended, and the
  // run before it.
  std::string wall_started;
  std::optional<TerminatedState> terminated;
  std::optional<TerminatedState> last_terminated;
};

// The startup probe has succeeded, or the container has none.
bool StartupDone(const Slot& s);

// The kubelet's "started": running, its postStart hook done and its startup probe passed.
bool Started(const Slot& s);

// Waits up to `limit` for an adopted init process that was killed, and lets it go.
void ReapKilled(Slot& s, std::chrono::milliseconds limit);

// A container id as the pod's status shows it.
inline std::string ContainerId(const std::string& id) { return "podlimits://" + id; }

class PodRun {
 public:
  PodRun(const PodPlan& plan, PodRunEnvironment& env)
      : plan_(plan), env_(env), sandbox_(plan, std::move(env.hierarchies), env.state_dir) {}

  PodRunResult Run();

 private:
  void Event(EventType type, std::string_view reason, std::string message) {
    env_.events->Eventf(type, reason, std::move(message));
  }
  // pod_run.cc: the loop.
  void NodeFailure(std::string_view reason, std::string message);
  void Advance();
  bool AnyRunning() const;
  bool AppsDone() const;
  int PollTimeoutMs() const;
  // pod_run_start.cc
  bool FindImages();
  bool FindImage(Slot& s);  // false: missing (s.image_missing says why)
  std::minstd_rand& JitterSource();
  // FindImages, then the sandbox and the first containers; on a node that keeps pods, a missing
  // image is waited out (image_retry_at_) instead of failing the pod.
  void StartPod();
  bool CreateSandbox();
  bool SetUpNetwork();
  bool StartSlot(Slot& s);
  void StartFailed(Slot& s, const std::string& message);
  void ConfigFailed(Slot& s, std::string_view reason, const std::string& message);
  // pod_run_restart.cc
  void ReapExited(Slot& s);
  void OnExit(Slot& s, int code);
  void Drain(Slot& s);
  void AfterExit(Slot& s, int code);
  bool RestartsAfter(const Slot& s, int code) const;
  void ScheduleRestart(Slot& s);
  void ApplyHistory(Slot& s);
  // pod_run_termination.cc
  void DeadlineExceeded();
  void HandleStop();
  void BeginTermination();
  void StopSlot(Slot& s, int signal, std::string killing_message = {});
  void Signal(Slot& s, int signal);
  void Teardown();
  // pod_run_probes.cc
  ActionTarget TargetOf(const Slot& s);
  void HandleActions();
  void RunDueProbes();
  void HookDone(Slot& s, const ActionOutcome& outcome);
  std::string HookFailure(const Slot& s, const api::HandlerAction& hook,
                          const ActionOutcome& outcome) const;
  void KillForRestart(Slot& s, std::string message, std::optional<std::int64_t> grace);
  // pod_run_spec_update.cc
  void ApplySpecUpdate(const PodSpecUpdate& update);
  // Slots for the ones not yet known; `inherited`: the pod had them when this worker started
  // (PodRunEnvironment::ephemeral_containers), and each goes on from its history.
  void AddEphemeralContainers(const std::vector<EphemeralContainerPlan>& containers,
                              bool inherited);
  // The init process whose PID namespace an ephemeral container joins (targetContainerName):
  // 0 for the pod's own namespaces; nullopt when the target does not run.
  std::optional<pid_t> TargetPid(const Slot& s) const;
  // pod_run_progress.cc
  std::string Phase() const;
  PodProgress Progress() const;
  void Report();  // tells env_.on_progress when the progress changed

  const PodPlan& plan_;
  PodRunEnvironment& env_;
  PodSandbox sandbox_;
  ContainerContext ctx_;
  // Init containers, then app containers, then the ephemeral containers updates added (a deque:
  // adding one leaves the others where pointers to them point).
  std::deque<Slot> slots_;
  std::size_t next_init_ = 0;
  bool apps_started_ = false;
  bool advanced_ = false;  // Advance has run once with the sandbox there
  bool init_failed_ = false;
  PodHolder holder_;
  std::vector<std::string> pod_ips_;  // the pod network's addresses (pod_network.h)
  PodVolumes volumes_{plan_};
  ActionExecutor actions_;  // last member: its threads are joined before the rest goes
  std::optional<Clock::time_point> deadline_;  // activeDeadlineSeconds after the start
  std::optional<std::int64_t> deadline_seconds_;  // the activeDeadlineSeconds deadline_ counts
  Clock::time_point run_started_;                 // when this worker started the pod
  // The container plans a spec update changed (ApplySpecUpdate): slots point into it.
  std::deque<ContainerPlan> updated_plans_;
  bool sandbox_created_ = false;
  std::optional<Clock::time_point> image_retry_at_;  // the next look for missing images
  bool terminating_ = false;
  // Config retries' jitter, seeded at the first retry (JitterSource): std::random_device costs
  // CPUID instructions and a read of /dev/urandom, which a pod that never retries need not pay.
  std::optional<std::minstd_rand> jitter_source_;
  bool killed_ = false;
  std::optional<Clock::time_point> kill_at_;
  PodRunResult result_;
  std::string start_time_;
  bool finished_ = false;
  std::optional<PodProgress> reported_;
};

}  // namespace podlimits::kubelet::pod_run
