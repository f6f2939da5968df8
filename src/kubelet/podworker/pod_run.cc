#include "kubelet/podworker/pod_run.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/child_reaper.h"
#include "base/clock_text.h"

namespace podlimits::kubelet::pod_run {

namespace fs = std::filesystem;

void PodRun::NodeFailure(std::string_view reason, std::string message) {
  Event(EventType::kWarning, reason, message);
  if (!result_.node_failure) {
    result_.node_failure = true;
    result_.failure_reason = std::string(reason);
    result_.failure = std::move(message);
  }
  BeginTermination();
}

bool PodRun::AnyRunning() const {
  return std::any_of(slots_.begin(), slots_.end(),
                     [](const Slot& s) { return s.state == SlotState::kRunning; });
}

bool PodRun::AppsDone() const {
  return apps_started_ && std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) {
           return s.init || s.ephemeral || s.state == SlotState::kDone;
         });
}

// Moves the pod forward: the next init container, the app containers, restarts that are due,
// and the pod's end once its app containers are done.
void PodRun::Advance() {
  if (terminating_ || !sandbox_created_) return;
  const bool pod_started = advanced_;  // an earlier Advance started the first containers
  advanced_ = true;
  auto now = Clock::now();
  for (auto& s : slots_) {
    const bool waiting = s.state == SlotState::kBackOff || s.state == SlotState::kConfigWait;
    if (waiting && s.restart_at <= now && !StartSlot(s)) return;
  }
  // Ephemeral containers start as soon as they are added, whatever the init containers do
  // (computePodActions starts them once the sandbox is there); ones the pod already had, from
  // the next pass on.
  for (auto& s : slots_) {
    if (!s.ephemeral || s.state != SlotState::kPending) continue;
    if (s.after_pod_start && !pod_started) continue;
    if (!StartSlot(s)) return;
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
    if (s.init || s.ephemeral) continue;
    if (s.state == SlotState::kPending && !StartSlot(s)) return;
    if (s.state == SlotState::kRunning && s.post_start_pending) break;
  }
  if (AppsDone()) BeginTermination();  // the sidecars go now
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
    // An inherited ephemeral container waits for the pass after the pod's first starts only.
    if (s.after_pod_start && s.state == SlotState::kPending && advanced_ && !terminating_) {
      consider(now);
    }
    if (s.state != SlotState::kRunning) continue;
    if (s.kill_at) consider(*s.kill_at);
    for (const auto& p : s.probes) {
      if (!p.in_flight() && !p.on_hold()) consider(p.NextDue());
    }
  }
  if (terminating_ && kill_at_ && !killed_) consider(*kill_at_);
  if (deadline_ && !terminating_) consider(*deadline_);
  if (image_retry_at_ && !terminating_) consider(*image_retry_at_);
  if (!next) return 1000;  // exits and output wake us; this bounds the reaping of orphans
  if (*next <= now) return 0;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*next - now).count() + 1;
  return static_cast<int>(std::min<long long>(ms, 1000));
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
  AddEphemeralContainers(env_.ephemeral_containers, /*inherited=*/true);

  // The kubelet's active deadline counts from when the node started the pod.
  run_started_ = Clock::now();
  deadline_seconds_ = plan_.pod.spec.active_deadline_seconds;
  if (deadline_seconds_) deadline_ = run_started_ + std::chrono::seconds(*deadline_seconds_);
  Report();
  StartPod();
  Report();
  while (AnyRunning() || (!terminating_ && !AppsDone())) {
    // What wakes the loop: a stop request, a container's exit (its pidfd), its output.
    enum class Kind { kStop, kSpec, kExit, kStdout, kStderr, kAction };
    std::vector<pollfd> fds;
    std::vector<std::pair<Slot*, Kind>> owners;
    if (env_.stop) {
      fds.push_back({env_.stop->fd(), POLLIN, 0});
      owners.push_back({nullptr, Kind::kStop});
    }
    if (env_.spec_updates) {
      fds.push_back({env_.spec_updates->fd(), POLLIN, 0});
      owners.push_back({nullptr, Kind::kSpec});
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
      if (fds[i].revents && kind == Kind::kSpec) {
        if (auto update = env_.spec_updates->Take()) ApplySpecUpdate(*update);
      }
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
    if (image_retry_at_ && !terminating_ && Clock::now() >= *image_retry_at_) StartPod();
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

}  // namespace podlimits::kubelet::pod_run
