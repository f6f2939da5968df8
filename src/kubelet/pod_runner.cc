#include "kubelet/pod_runner.h"
#include "kubelet/resource_config.h"

#include <fmt/format.h>
#include <fmt/chrono.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <chrono>
#include <memory>
#include <random>

#include "base/child_reaper.h"
#include "base/clock_text.h"
#include "base/error.h"
#include "kubelet/action_executor.h"
#include "kubelet/pod_holder.h"
#include "kubelet/pod_hostname.h"
#include "kubelet/probe_worker.h"
#include "kubelet/pod_record.h"
#include "kubelet/pod_volumes.h"
#include "kubelet/pod_sandbox.h"

namespace podlimits::kubelet {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// How long output of an exited container is still read while something else holds its pipes
// (a hostPID container's orphans).
constexpr auto kDrainLimit = std::chrono::milliseconds(200);

// kConfigWait: CreateContainerConfigError on a node that retries it (config_retry).
enum class SlotState { kPending, kRunning, kBackOff, kConfigWait, kDone };

struct Slot {
  const ContainerPlan* plan = nullptr;
  image::Image image;
  bool init = false;
  bool sidecar = false;
  SlotState state = SlotState::kPending;
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

// The kubelet's bounds for a termination message: the file's first 4096 bytes; from the logs
// (FallbackToLogsOnError) the last 80 lines, at most 2048 bytes.
constexpr std::size_t kMaxTerminationMessage = 4096;
constexpr std::size_t kMaxTerminationLogBytes = 2048;
constexpr std::size_t kMaxTerminationLogLines = 80;

// Passes output on and keeps its last kMaxTerminationLogBytes.
class TailKeepingSink : public cri::OutputSink {
 public:
  TailKeepingSink(std::unique_ptr<cri::OutputSink> inner, std::string* tail)
      : inner_(std::move(inner)), tail_(tail) {}
  void Feed(std::string_view data) override {
    inner_->Feed(data);
    tail_->append(data);
    if (tail_->size() > kMaxTerminationLogBytes) {
      tail_->erase(0, tail_->size() - kMaxTerminationLogBytes);
    }
  }
  void Finish() override { inner_->Finish(); }

 private:
  std::unique_ptr<cri::OutputSink> inner_;
  std::string* tail_;
};

// What the kubelet puts in a terminated container's status message.
std::string TerminationMessage(const api::Container& c, const fs::path& file, int exit_code,
                               const std::string& log_tail) {
  std::string message;
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    message.resize(kMaxTerminationMessage);
    in.read(message.data(), static_cast<std::streamsize>(message.size()));
    message.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  }
  if (message.empty() && exit_code != 0 && c.termination_message_policy == "FallbackToLogsOnError") {
    // The last kMaxTerminationLogLines lines of the kept tail, each with its newline.
    std::vector<std::string_view> lines;
    std::string_view rest = log_tail;
    while (!rest.empty()) {
      const std::size_t nl = rest.find('\n');
      const std::size_t len = nl == std::string_view::npos ? rest.size() : nl + 1;
      lines.push_back(rest.substr(0, len));
      rest.remove_prefix(len);
    }
    const std::size_t first =
        lines.size() > kMaxTerminationLogLines ? lines.size() - kMaxTerminationLogLines : 0;
    for (std::size_t i = first; i < lines.size(); ++i) message += lines[i];
  }
  return message;
}

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

// The init process of a container is ours to wait for from here on (we are its subreaper).
void Adopt(Slot& s) {
  pid_t pid = s.instance->pid;
  s.early_status = ChildReaper::Process().Adopt(pid);
  if (!s.early_status) s.pidfd = OpenPidfd(pid);
}

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

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}


std::string ContainerId(const std::string& id) { return "podlimits://" + id; }

// A whole number of seconds as Go's time.Duration prints it: 10s, 1m20s, 5m0s.
std::string GoSeconds(std::chrono::seconds d) {
  const auto total = d.count();
  if (total < 60) return fmt::format("{}s", total);
  if (total < 3600) return fmt::format("{}m{}s", total / 60, total % 60);
  return fmt::format("{}h{}m{}s", total / 3600, total % 3600 / 60, total % 60);
}

class PodRun {
 public:
  PodRun(const PodPlan& plan, PodRunEnvironment& env)
      : plan_(plan), env_(env), sandbox_(plan, std::move(env.hierarchies), env.state_dir) {}

  PodRunResult Run();

 private:
  void Event(EventType type, std::string_view reason, std::string message) {
    env_.events->Eventf(type, reason, std::move(message));
  }
  void NodeFailure(std::string_view reason, std::string message);
  bool FindImages();
  bool CreateSandbox();
  bool SetUpNetwork();
  bool StartSlot(Slot& s);
  void StartFailed(Slot& s, const std::string& message);
  void ConfigFailed(Slot& s, std::string_view reason, const std::string& message);
  void DeadlineExceeded();
  void AfterExit(Slot& s, int code);
  bool RestartsAfter(const Slot& s, int code) const;
  void ApplyHistory(Slot& s);
  void Advance();
  void BeginTermination();
  void StopSlot(Slot& s, int signal, std::string killing_message = {});
  void Signal(Slot& s, int signal);
  ActionTarget TargetOf(const Slot& s);
  void HandleActions();
  void RunDueProbes();
  void HookDone(Slot& s, const ActionOutcome& outcome);
  std::string HookFailure(const Slot& s, const api::HandlerAction& hook,
                          const ActionOutcome& outcome) const;
  void KillForRestart(Slot& s, std::string message, std::optional<std::int64_t> grace);
  void HandleStop();
  void ReapExited(Slot& s);
  void OnExit(Slot& s, int code);
  void Drain(Slot& s);
  void ScheduleRestart(Slot& s);
  int PollTimeoutMs() const;
  void Teardown();
  bool AnyRunning() const;
  bool AppsDone() const;
  std::string Phase() const;
  PodProgress Progress() const;
  void Report();  // tells env_.on_progress when the progress changed

  const PodPlan& plan_;
  PodRunEnvironment& env_;
  PodSandbox sandbox_;
  ContainerContext ctx_;
  std::vector<Slot> slots_;  // init containers, then app containers
  std::size_t next_init_ = 0;
  bool apps_started_ = false;
  bool init_failed_ = false;
  PodHolder holder_;
  std::vector<std::string> pod_ips_;  // the pod network's addresses (pod_network.h)
  PodVolumes volumes_{plan_};
  ActionExecutor actions_;  // last member: its threads are joined before the rest goes
  std::optional<Clock::time_point> deadline_;  // activeDeadlineSeconds after the start
  bool terminating_ = false;
  std::minstd_rand jitter_source_{std::random_device{}()};  // config retries' jitter
  bool killed_ = false;
  std::optional<Clock::time_point> kill_at_;
  PodRunResult result_;
  std::string start_time_;
  bool finished_ = false;
  std::optional<PodProgress> reported_;
};


void PodRun::NodeFailure(std::string_view reason, std::string message) {
  Event(EventType::kWarning, reason, message);
  if (!result_.node_failure) {
    result_.node_failure = true;
    result_.failure_reason = std::string(reason);
    result_.failure = std::move(message);
  }
  BeginTermination();
}

bool PodRun::FindImages() {
  for (auto& s : slots_) {
    auto image = env_.images->Find(s.plan->container.image);
    if (!image) {
      // podlimits never pulls, which is the kubelet's imagePullPolicy: Never.
      NodeFailure("ErrImageNeverPull",
                  fmt::format("Container image \"{}\" is not present with pull policy of Never: {}",
                              s.plan->container.image, image.error().Message()));
      return false;
    }
    s.image = std::move(*image);
  }
  return true;
}

// The pod's network in its holder's namespace, and its addresses in /etc/hosts, before any
// container (the kubelet's RunPodSandbox sets the network up before it returns).
bool PodRun::SetUpNetwork() {
  auto ips = env_.network->SetUp(plan_.pod, plan_.uid, holder_.pid, plan_.pod_dir);
  if (!ips) {
    NodeFailure("FailedCreatePodSandBox",
                fmt::format("Failed to create pod sandbox: failed to set up network for sandbox "
                            "\"{}\": {}",
                            plan_.uid, ips.error().Message()));
    return false;
  }
  pod_ips_ = std::move(*ips);
  ctx_.env.pod_ips = pod_ips_;
  PodEtcFiles files = plan_.etc_files;
  files.hosts = ManagedHostsFile(pod_ips_, plan_.hostnames, plan_.pod.spec.host_aliases);
  if (auto w = WritePodEtcFiles(plan_.pod_dir, files); !w) {
    NodeFailure("FailedCreatePodSandBox", "Failed to create pod sandbox: " + w.error().Message());
    return false;
  }
  return true;
}

bool PodRun::CreateSandbox() {
  PodRecord record;
  record.uid = plan_.uid;
  record.name = plan_.pod.metadata.name;
  record.namespace_ = plan_.pod.metadata.namespace_;
  record.runtime = std::string(env_.runtime->Name());
  record.runtime_binary = env_.runtime->Binary();
  record.runtime_root = env_.runtime->StateRoot();
  record.cgroup_root = plan_.cgroup.cgroup_root;
  record.qos = plan_.qos;
  record.cpu_request_milli = PodCpuRequestMilli(plan_.pod);
  std::vector<std::string> image_names;
  for (const auto& s : slots_) {
    record.containers.push_back({s.plan->container.name, s.plan->id});
    const fs::path dir = env_.images->root() / s.image.id;
    if (std::find(record.images.begin(), record.images.end(), dir) == record.images.end()) {
      record.images.push_back(dir);
      image_names.push_back(s.plan->container.image);
    }
  }
  auto applied = sandbox_.Create(record, image_names);
  if (!applied) {
    NodeFailure(applied.error().reason, applied.error().message);
    return false;
  }
  if (plan_.pid_limit.capped_event) env_.events->Record(*plan_.pid_limit.capped_event);
  for (const auto& e : plan_.sandbox_events) env_.events->Record(e);
  // Verify: what the kernel holds is what was planned, or the user hears of it.
  for (const auto& h : applied->hierarchies) {
    if (!h.pod_pids_max) continue;
    if (h.pod_pids_max->value != plan_.cgroup.pod_pids_max) {
      auto text = [](const std::optional<std::int64_t>& v) {
        return v ? std::to_string(*v) : std::string("max");
      };
      Event(EventType::kWarning, "PIDLimitMismatch",
            fmt::format("{} reads {} after writing {}", h.pod_pids_max->file.string(),
                        text(h.pod_pids_max->value), text(plan_.cgroup.pod_pids_max)));
    }
  }
  if (plan_.pid_limit.pod_limit_applied && env_.metrics) env_.metrics->PodPIDLimitApplied().Inc();
  result_.cgroup = std::move(*applied);
  ctx_.pod_cgroup = result_.cgroup->cgroup;

  if (auto w = WritePodEtcFiles(plan_.pod_dir, plan_.etc_files); !w) {
    NodeFailure("FailedCreatePodSandBox", "Failed to create pod sandbox: " + w.error().Message());
    return false;
  }
  // The holder of the namespaces the containers share, before any of them.
  auto holder = StartPodHolder(env_.start_holder, plan_, *result_.cgroup, env_.sandbox_holder);
  if (!holder) {
    NodeFailure("FailedCreatePodSandBox", "Failed to create pod sandbox: " + holder.error().Message());
    return false;
  }
  holder_ = std::move(*holder);
  ctx_.sandbox_pid = holder_.pid;
  if (env_.network && !plan_.pod.spec.host_network && !SetUpNetwork()) return false;

  // The volumes, before any container mounts them. A volume that cannot be set up is the pod's
  // failure (the kubelet's FailedMount), not the node's.
  PayloadContext payload_ctx;
  payload_ctx.objects = env_.objects;
  payload_ctx.allocatable = env_.allocatable;
  // The annotations the kubelet's pod config adds to every pod it sees from the API.
  payload_ctx.kubelet_annotations = {{"kubernetes.io/config.seen", Rfc3339NanoNow()},
                                     {"kubernetes.io/config.source", "api"}};
  volumes_.set_payload_context(std::move(payload_ctx));
  if (auto set_up = volumes_.SetUp(); !set_up) {
    const std::string message = set_up.error().Message();
    Event(EventType::kWarning, "FailedMount", message);
    result_.failure_reason = "FailedMount";
    result_.failure = message;
    BeginTermination();
    return false;
  }
  ctx_.volumes = &volumes_;
  return true;
}

// Returns false only on a node failure; a container that could not start has failed (StartError)
// and its slot says what comes next.
bool PodRun::StartSlot(Slot& s) {
  const std::string& name = s.plan->container.name;
  // Every start ensures the image first (startContainer's EnsureImageExists: a Pulled event
  // each time, "(x4 over 2m)" in a crash loop). A retry after CreateContainerConfigError is not
  // a restart: no container was made.
  Event(EventType::kNormal, "Pulled",
        fmt::format("Container image \"{}\" already present on machine", s.plan->container.image));
  const bool config_retry = s.state == SlotState::kConfigWait;
  if (s.attempts > 0 && !config_retry) {
    ++s.result.restarts;  // counted when the restart happens, as the kubelet's restartCount
  }
  if (s.terminated) s.last_terminated = std::move(s.terminated);
  s.terminated.reset();
  if (!config_retry) ++s.attempts;
  s.stop_sent = false;
  s.result.reason.clear();
  s.result.message.clear();
  auto inst = CreateContainer(ctx_, plan_, *s.plan, s.image, *env_.events);
  if (!inst) {
    if (inst.error().kind == ContainerError::Kind::kConfig) {
      ConfigFailed(s, kCreateContainerConfigError, inst.error().error.Message());
      return true;
    }
    if (inst.error().kind == ContainerError::Kind::kCreate) {
      ConfigFailed(s, kCreateContainerError, inst.error().error.Message());
      return true;
    }
    if (inst.error().kind == ContainerError::Kind::kStart) {
      StartFailed(s, inst.error().error.Message());
      return true;
    }
    NodeFailure("Failed", "Error: " + inst.error().error.Message());
    return false;
  }
  s.instance = std::move(*inst);
  s.result.limits = s.instance->limits;
  Adopt(s);
  Event(EventType::kNormal, "Created", fmt::format("Created container: {}", name));
  s.log_tail.clear();
  s.out = std::make_unique<TailKeepingSink>(env_.output->Open(name, s.result.restarts, cri::OutputStream::kStdout),
                                            &s.log_tail);
  s.err = std::make_unique<TailKeepingSink>(env_.output->Open(name, s.result.restarts, cri::OutputStream::kStderr),
                                            &s.log_tail);
  if (auto st = StartContainer(ctx_, *s.instance); !st) {
    for (auto& e : RemoveContainer(ctx_, *s.instance)) result_.teardown_errors.push_back(e);
    ReapKilled(s, std::chrono::seconds(1));
    s.instance.reset();
    if (st.error().kind == ContainerError::Kind::kStart) {
      StartFailed(s, st.error().error.Message());
      return true;
    }
    NodeFailure("Failed", "Error: " + st.error().error.Message());
    return false;
  }
  s.result.seccomp_mode = s.instance->seccomp_mode;
  Event(EventType::kNormal, "Started", fmt::format("Started container {}", name));
  s.state = SlotState::kRunning;
  s.wall_started = Rfc3339Now();
  s.started_at = Clock::now();
  s.result.started = true;
  s.kill_at.reset();
  s.pre_stop_ran = false;
  s.restart_after_kill = false;
  const api::Container& c = s.plan->container;
  s.probes.clear();
  if (c.startup_probe) s.probes.emplace_back(ProbeType::kStartup, *c.startup_probe);
  if (c.liveness_probe) s.probes.emplace_back(ProbeType::kLiveness, *c.liveness_probe);
  if (c.readiness_probe) s.probes.emplace_back(ProbeType::kReadiness, *c.readiness_probe);
  for (auto& p : s.probes) p.Reset(s.started_at);
  // The postStart hook, as the kubelet runs it right after the start (the container is not
  // "started" until it is done). It has no timeout of its own: a stop kills it with the
  // container.
  if (c.post_start) {
    s.post_start_pending = true;
    s.hook_ticket = actions_.Submit(*c.post_start, TargetOf(s), std::chrono::hours(24));
  }
  return true;
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
    if (outcome.http_status != 0 && outcome.result != ProbeResult::kUnknown) return "";
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

// The kubelet's RunContainerError: a Failed event with the runtime's message, and the container
// terminated with StartError / 128 (containerd's status for a task that could not start), which
// restartPolicy answers as any other failed exit.
void PodRun::StartFailed(Slot& s, const std::string& message) {
  Event(EventType::kWarning, "Failed", "Error: " + message);
  s.result.exit_code = kStartErrorExitCode;
  s.result.reason = std::string(kStartErrorReason);
  s.result.message = message;
  s.state = SlotState::kDone;
  s.started_at = Clock::now();
  TerminatedState t;
  t.exit_code = kStartErrorExitCode;
  t.reason = s.result.reason;
  t.message = message;
  t.finished_at = Rfc3339Now();
  if (s.instance) t.container_id = ContainerId(s.instance->id);
  s.terminated = std::move(t);
  AfterExit(s, kStartErrorExitCode);
}

// The kubelet's CreateContainerConfigError: the container stays waiting and the kubelet retries
// it at every sync of the pod, until what it reads exists (config_retry). A one-shot node ends
// the pod instead: Failed, with the container's reason and the kubelet's message.
void PodRun::ConfigFailed(Slot& s, std::string_view reason, const std::string& message) {
  Event(EventType::kWarning, "Failed", "Error: " + message);
  s.result.reason = std::string(reason);
  s.result.message = message;
  if (env_.config_retry && reason == kCreateContainerConfigError) {
    const auto period = std::chrono::duration_cast<Clock::duration>(*env_.config_retry);
    std::uniform_int_distribution<Clock::rep> jitter(0, period.count() / 2);
    s.state = SlotState::kConfigWait;
    s.restart_at = Clock::now() + period + Clock::duration(jitter(jitter_source_));
    return;
  }
  s.state = SlotState::kDone;
  if (result_.failure_reason.empty()) {
    result_.failure_reason = std::string(reason);
    result_.failure = message;
  }
  BeginTermination();
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

bool PodRun::AnyRunning() const {
  return std::any_of(slots_.begin(), slots_.end(),
                     [](const Slot& s) { return s.state == SlotState::kRunning; });
}

bool PodRun::AppsDone() const {
  return apps_started_ && std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) {
           return s.init || s.state == SlotState::kDone;
         });
}

// Moves the pod forward: the next init container, the app containers, restarts that are due,
// and the pod's end once its app containers are done.
void PodRun::Advance() {
  if (terminating_) return;
  auto now = Clock::now();
  for (auto& s : slots_) {
    const bool waiting = s.state == SlotState::kBackOff || s.state == SlotState::kConfigWait;
    if (waiting && s.restart_at <= now && !StartSlot(s)) return;
  }
  while (next_init_ < slots_.size() && slots_[next_init_].init) {
    Slot& s = slots_[next_init_];
    if (s.state == SlotState::kPending) {
      if (!StartSlot(s)) return;
    }
    if (s.sidecar && Started(s)) {
      ++next_init_;  // started (postStart done, startup probe passed): the next may go
      continue;
    }
    if (s.sidecar) return;  // starting, or backing off
    if (s.state == SlotState::kDone && s.result.exit_code == 0) {
      ++next_init_;
      continue;
    }
    if (s.state == SlotState::kDone) {  // failed under restartPolicy Never
      init_failed_ = true;
      BeginTermination();
    }
    return;  // running or backing off
  }
  // App containers in order; as the kubelet's SyncPod, the next starts once the previous one's
  // postStart hook has returned.
  apps_started_ = true;
  for (auto& s : slots_) {
    if (s.init) continue;
    if (s.state == SlotState::kPending && !StartSlot(s)) return;
    if (s.state == SlotState::kRunning && s.post_start_pending) break;
  }
  if (AppsDone()) BeginTermination();  // the sidecars go now
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
  if (s.sidecar) return true;  // sidecars restart whatever the pod's policy
  if (policy == "Always") return !s.init || code != 0;
  if (policy == "OnFailure") return code != 0;
  return false;
}

// Picks up where an earlier worker of this pod left the container (ContainerHistory).
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

int PodRun::PollTimeoutMs() const {
  auto now = Clock::now();
  std::optional<Clock::time_point> next;
  auto consider = [&](Clock::time_point t) {
    if (!next || t < *next) next = t;
  };
  for (const auto& s : slots_) {
    if (s.state == SlotState::kBackOff || s.state == SlotState::kConfigWait) {
      consider(s.restart_at);
    }
    if (s.state != SlotState::kRunning) continue;
    if (s.kill_at) consider(*s.kill_at);
    for (const auto& p : s.probes) {
      if (!p.in_flight() && !p.on_hold()) consider(p.NextDue());
    }
  }
  if (terminating_ && kill_at_ && !killed_) consider(*kill_at_);
  if (deadline_ && !terminating_) consider(*deadline_);
  if (!next) return 1000;  // exits and output wake us; this bounds the reaping of orphans
  if (*next <= now) return 0;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*next - now).count() + 1;
  return static_cast<int>(std::min<long long>(ms, 1000));
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

std::string PodRun::Phase() const {
  // A failure_reason is set by whatever failed the pod itself (a node failure, a container
  // config error, a volume, the deadline).
  if (!result_.failure_reason.empty() || init_failed_ || !apps_started_) return "Failed";
  for (const auto& s : slots_) {
    if (!s.init && s.result.exit_code != 0) return "Failed";
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

PodRunResult PodRun::Run() {
  start_time_ = Rfc3339Now();
  ctx_.runtime = env_.runtime;
  ctx_.snapshotter = env_.snapshotter;
  ctx_.host_capabilities = env_.host_capabilities;
  ctx_.seccomp = env_.seccomp;
  ctx_.env.objects = env_.objects;
  ctx_.env.allocatable = env_.allocatable;
  if (!env_.node_ip.empty()) {
    ctx_.env.host_ips = {env_.node_ip};
    if (plan_.pod.spec.host_network) ctx_.env.pod_ips = {env_.node_ip};
  }
  ctx_.kill_cgroup = [this](const fs::path& cgroup) { return sandbox_.Kill(cgroup); };
  for (const auto& c : plan_.init_containers) {
    Slot s;
    s.plan = &c;
    s.init = true;
    s.sidecar = c.container.IsSidecar();
    slots_.push_back(std::move(s));
  }
  for (const auto& c : plan_.containers) {
    Slot s;
    s.plan = &c;
    slots_.push_back(std::move(s));
  }
  for (auto& s : slots_) {
    s.result.name = s.plan->container.name;
    s.result.init = s.init;
    s.result.sidecar = s.sidecar;
    ApplyHistory(s);
  }

  // The kubelet's active deadline counts from when the node started the pod.
  if (plan_.pod.spec.active_deadline_seconds) {
    deadline_ = Clock::now() + std::chrono::seconds(*plan_.pod.spec.active_deadline_seconds);
  }
  Report();
  if (FindImages() && CreateSandbox()) Advance();
  Report();
  while (AnyRunning() || (!terminating_ && !AppsDone())) {
    // What wakes the loop: a stop request, a container's exit (its pidfd), its output.
    enum class Kind { kStop, kExit, kStdout, kStderr, kAction };
    std::vector<pollfd> fds;
    std::vector<std::pair<Slot*, Kind>> owners;
    if (env_.stop) {
      fds.push_back({env_.stop->fd(), POLLIN, 0});
      owners.push_back({nullptr, Kind::kStop});
    }
    fds.push_back({actions_.fd(), POLLIN, 0});
    owners.push_back({nullptr, Kind::kAction});
    bool exit_known = false;
    for (auto& s : slots_) {
      if (s.state != SlotState::kRunning || !s.instance) continue;
      if (s.early_status) exit_known = true;
      if (s.pidfd.valid()) {
        fds.push_back({s.pidfd.get(), POLLIN, 0});
        owners.push_back({&s, Kind::kExit});
      }
      if (s.instance->stdout_fd >= 0) {
        fds.push_back({s.instance->stdout_fd, POLLIN, 0});
        owners.push_back({&s, Kind::kStdout});
      }
      if (s.instance->stderr_fd >= 0) {
        fds.push_back({s.instance->stderr_fd, POLLIN, 0});
        owners.push_back({&s, Kind::kStderr});
      }
    }
    int n = poll(fds.data(), fds.size(), exit_known ? 0 : PollTimeoutMs());
    if (n < 0 && errno != EINTR) {
      NodeFailure("Failed", fmt::format("Error: poll: {}", std::strerror(errno)));
      break;
    }
    // Output before exits, so a container's last lines precede what its exit triggers.
    for (std::size_t i = 0; n > 0 && i < fds.size(); ++i) {
      auto [slot, kind] = owners[i];
      if (!fds[i].revents || (kind != Kind::kStdout && kind != Kind::kStderr)) continue;
      if (!slot->instance) continue;
      const bool is_out = kind == Kind::kStdout;
      int& fd = is_out ? slot->instance->stdout_fd : slot->instance->stderr_fd;
      if (!cri::PumpOnce(fd, is_out ? *slot->out : *slot->err)) {
        (is_out ? slot->out : slot->err)->Finish();
        close(fd);
        fd = -1;
      }
    }
    for (std::size_t i = 0; n > 0 && i < fds.size(); ++i) {
      auto [slot, kind] = owners[i];
      if (fds[i].revents && kind == Kind::kStop) HandleStop();
    }
    for (auto& s : slots_) {
      if (s.state != SlotState::kRunning || !s.instance) continue;
      bool exited = s.early_status.has_value();
      for (std::size_t i = 0; !exited && n > 0 && i < fds.size(); ++i) {
        exited = owners[i].first == &s && owners[i].second == Kind::kExit && fds[i].revents;
      }
      if (exited) ReapExited(s);
    }
    ChildReaper::Process().ReapOrphans();  // what a hostPID container left behind
    HandleActions();
    for (auto& s : slots_) {
      if (s.kill_at && Clock::now() >= *s.kill_at) StopSlot(s, SIGKILL);
    }
    RunDueProbes();
    if (deadline_ && !terminating_ && Clock::now() >= *deadline_) DeadlineExceeded();
    if (terminating_ && kill_at_ && !killed_ && Clock::now() >= *kill_at_) {
      killed_ = true;
      for (auto& s : slots_) StopSlot(s, SIGKILL);
    }
    Advance();
    Report();
  }
  Teardown();
  result_.phase = Phase();
  finished_ = true;
  Report();
  for (auto& s : slots_) result_.containers.push_back(std::move(s.result));
  return std::move(result_);
}

}  // namespace

TerminatedState LostContainerState() {
  TerminatedState t;
  t.exit_code = 137;
  t.reason = "ContainerStatusUnknown";
  t.message =
      "The container could not be located when the pod was deleted.  The container used to be "
      "Running";
  return t;
}

PodStop::PodStop() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

void PodStop::Request() {
  std::uint64_t one = 1;
  (void)!write(fd_.get(), &one, sizeof one);
}

void PodStop::Request(std::int64_t grace_seconds) {
  grace_seconds = std::max<std::int64_t>(0, grace_seconds);
  std::int64_t current = grace_.load();
  while ((current < 0 || grace_seconds < current) &&
         !grace_.compare_exchange_weak(current, grace_seconds)) {
  }
  Request();
}

int PodStop::Take() {
  std::uint64_t count = 0;
  if (read(fd_.get(), &count, sizeof count) != sizeof count) return 0;
  return static_cast<int>(count);
}

PodRunResult RunPod(const PodPlan& plan, PodRunEnvironment& env) {
  PodRun run(plan, env);
  return run.Run();
}

}  // namespace podlimits::kubelet
