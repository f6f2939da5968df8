#include "kubelet/podworker/pod_run.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/child_reaper.h"
#include "base/clock_text.h"
#include "kubelet/network/pod_hostname.h"
#include "kubelet/podworker/pod_record.h"
#include "kubelet/cm/resource_config.h"
#include "kubelet/podworker/termination_message.h"

namespace podlimits::kubelet::pod_run {

namespace fs = std::filesystem;
namespace {

// The init process of a container is ours to wait for from here on (we are its subreaper).
void Adopt(Slot& s) {
  pid_t pid = s.instance->pid;
  s.early_status = ChildReaper::Process().Adopt(pid);
  if (!s.early_status) s.pidfd = OpenPidfd(pid);
}

}  // namespace

// podlimits never pulls, which is the kubelet's imagePullPolicy: Never, whatever the pod's
// policy says: the image manager's ErrImageNeverPull, with its message, and where to load the
// image from the store's own error (which names the `podlimits image` command for this store).
bool PodRun::FindImage(Slot& s) {
  if (!s.image.id.empty()) return true;
  auto image = env_.images->Find(s.plan->container.image);
  if (!image) {
    s.image_missing =
        fmt::format("Container image \"{}\" is not present with pull policy of Never: {}",
                    s.plan->container.image, image.error().Message());
    return false;
  }
  s.image = std::move(*image);
  s.image_missing.clear();
  return true;
}

// The images the pod's init and app containers need. An ephemeral container's is looked for at
// its own start: one missing leaves it waiting, not the pod (and one that ran needs none).
bool PodRun::FindImages() {
  bool all = true;
  for (auto& s : slots_) {
    if (!s.ephemeral && !FindImage(s)) all = false;
  }
  return all;
}

std::minstd_rand& PodRun::JitterSource() {
  if (!jitter_source_) jitter_source_.emplace(std::random_device{}());
  return *jitter_source_;
}

void PodRun::StartPod() {
  if (!FindImages()) {
    if (!env_.config_retry) {
      // A one-shot run: nothing loads the image meanwhile, so the pod fails.
      for (const auto& s : slots_) {
        if (!s.image_missing.empty()) {
          NodeFailure("ErrImageNeverPull", s.image_missing);
          break;
        }
      }
      return;
    }
    // The containers wait (ErrImageNeverPull) and the images are looked for again at the pod
    // worker's next sync: after its back-off period plus up to half of it. Every look that
    // finds one missing is an event, as each sync of the kubelet's is (the recorder counts them).
    for (const auto& s : slots_) {
      if (!s.image_missing.empty()) Event(EventType::kWarning, "ErrImageNeverPull", s.image_missing);
    }
    const auto period = std::chrono::duration_cast<Clock::duration>(*env_.config_retry);
    std::uniform_int_distribution<Clock::rep> jitter(0, period.count() / 2);
    image_retry_at_ = Clock::now() + period + Clock::duration(jitter(JitterSource()));
    return;
  }
  image_retry_at_.reset();
  if (CreateSandbox()) {
    sandbox_created_ = true;
    Advance();
  }
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
    if (s.ephemeral) continue;  // recorded at its start (StartSlot), if it starts
    record.containers.push_back({s.plan->container.name, s.plan->id});
    const fs::path dir = env_.images->root() / s.image.id;
    if (std::find(record.images.begin(), record.images.end(), dir) == record.images.end()) {
      record.images.push_back(dir);
      image_names.push_back(s.plan->container.image);
    }
  }
  auto applied = sandbox_.Create(record, image_names);
  if (!applied) {
    NodeFailure(applied.error().reason, applied.error().Message());
    return false;
  }
  if (plan_.pid_limit.event) env_.events->Record(*plan_.pid_limit.event);
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
  // An image a spec update named (pod_run_spec_update.cc), looked for at this start: missing,
  // the container waits with ErrImageNeverPull as the kubelet's image manager has it.
  if (!FindImage(s)) {
    Event(EventType::kWarning, "ErrImageNeverPull", s.image_missing);
    ConfigFailed(s, kErrImageNeverPull, s.image_missing);
    return true;
  }
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
  // An ephemeral container with a target joins the target's PID namespace; a target that does
  // not run has none to join (the runtime's "container not running").
  const std::optional<pid_t> target = TargetPid(s);
  if (!target) {
    StartFailed(s, fmt::format("target container \"{}\" is not running",
                               s.plan->container.target_container_name));
    return true;
  }
  if (s.ephemeral) {
    // Not in the record the sandbox began with: named there before the runtime has it.
    auto recorded = sandbox_.AddContainer(name, s.plan->id, env_.images->root() / s.image.id,
                                          s.plan->container.image);
    if (!recorded) {
      StartFailed(s, recorded.error().Message());
      return true;
    }
  }
  auto inst = CreateContainer(ctx_, plan_, *s.plan, s.image, *env_.events, *target);
  if (!inst) {
    const Error& e = inst.error();
    if (e.Is(kCreateContainerConfigError) || e.Is(kCreateContainerError)) {
      ConfigFailed(s, e.reason, e.Message());
      return true;
    }
    if (e.Is(kStartErrorReason)) {
      StartFailed(s, e.Message());
      return true;
    }
    NodeFailure("Failed", "Error: " + e.Message());
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
    if (st.error().Is(kStartErrorReason)) {
      StartFailed(s, st.error().Message());
      return true;
    }
    NodeFailure("Failed", "Error: " + st.error().Message());
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
  // The image manager's errors print their reason (the gRPC status of ErrImageNeverPull).
  Event(EventType::kWarning, "Failed",
        "Error: " + (reason == kErrImageNeverPull ? std::string(reason) : message));
  s.result.reason = std::string(reason);
  s.result.message = message;
  if (env_.config_retry && (reason == kCreateContainerConfigError || reason == kErrImageNeverPull)) {
    const auto period = std::chrono::duration_cast<Clock::duration>(*env_.config_retry);
    std::uniform_int_distribution<Clock::rep> jitter(0, period.count() / 2);
    s.state = SlotState::kConfigWait;
    s.restart_at = Clock::now() + period + Clock::duration(jitter(JitterSource()));
    return;
  }
  s.state = SlotState::kDone;
  if (s.ephemeral) return;  // a debugging container that cannot run ends nothing but itself
  if (result_.failure_reason.empty()) {
    result_.failure_reason = std::string(reason);
    result_.failure = message;
  }
  BeginTermination();
}

}  // namespace podlimits::kubelet::pod_run
