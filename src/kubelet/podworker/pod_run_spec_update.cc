// A change of the running pod's spec (pod_spec_update.h): new images restart their containers,
// a new activeDeadlineSeconds moves the deadline, new ephemeral containers start.
#include <fmt/format.h>

#include <algorithm>

#include "kubelet/podworker/pod_run.h"

namespace podlimits::kubelet::pod_run {

void PodRun::ApplySpecUpdate(const PodSpecUpdate& update) {
  if (terminating_) return;  // a pod on its way out keeps the spec it is stopped with
  AddEphemeralContainers(update.ephemeral_containers, false);
  if (update.active_deadline_seconds != deadline_seconds_) {
    deadline_seconds_ = update.active_deadline_seconds;
    deadline_.reset();
    if (deadline_seconds_) deadline_ = run_started_ + std::chrono::seconds(*deadline_seconds_);
  }
  for (auto& s : slots_) {
    const std::string& name = s.plan->container.name;
    auto image = update.images.find(name);
    if (image == update.images.end() || image->second == s.plan->container.image) continue;
    // The slot's plan with the new image; the pod's plan stays as admitted (its other fields
    // cannot change) and a deque keeps the earlier copies where running probes point.
    ContainerPlan& changed = updated_plans_.emplace_back(*s.plan);
    changed.container.image = image->second;
    s.plan = &changed;
    s.image = {};  // found again at the next start (StartSlot), which may wait for it
    s.image_missing.clear();
    // The kubelet restarts a running container whose spec hash changed, whatever the restart
    // policy; an init container that is not a sidecar is not restarted (computePodActions
    // compares only the running app containers and sidecars).
    if (s.state != SlotState::kRunning || !s.instance || (s.init && !s.sidecar)) continue;
    s.restart_after_kill = true;
    KillForRestart(s, fmt::format("Container {} definition changed, will be restarted", name),
                   std::nullopt);
  }
}

// Each ephemeral container not yet known gets a slot; Advance starts it. One the node refused
// waits with CreateContainerError and the node's message, and never runs. One the pod had under
// an earlier worker goes on from there first (ApplyHistory): one that ran is done, as it ended or
// lost; the node's refusal is for one that never ran.
void PodRun::AddEphemeralContainers(const std::vector<EphemeralContainerPlan>& containers,
                                    bool inherited) {
  for (const EphemeralContainerPlan& e : containers) {
    const std::string& name = e.plan.container.name;
    const bool known = std::any_of(slots_.begin(), slots_.end(), [&](const Slot& s) {
      return s.plan->container.name == name;
    });
    if (known) continue;
    Slot& s = slots_.emplace_back();
    s.plan = &updated_plans_.emplace_back(e.plan);
    s.ephemeral = true;
    s.result.name = name;
    if (inherited) {
      ApplyHistory(s);
      if (s.state == SlotState::kDone) continue;
      s.after_pod_start = true;
    }
    if (!e.refused.empty()) {
      Event(EventType::kWarning, "Failed", "Error: " + e.refused);
      s.result.reason = std::string(kCreateContainerError);
      s.result.message = e.refused;
      s.state = SlotState::kDone;
    }
  }
}

std::optional<pid_t> PodRun::TargetPid(const Slot& s) const {
  const std::string& target = s.plan->container.target_container_name;
  if (target.empty() || plan_.pod.spec.host_pid) return 0;
  for (const Slot& other : slots_) {
    if (other.ephemeral || other.plan->container.name != target) continue;
    if (other.state == SlotState::kRunning && other.instance) return other.instance->pid;
  }
  return std::nullopt;
}

}  // namespace podlimits::kubelet::pod_run
