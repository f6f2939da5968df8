// A change of the running pod's spec (pod_spec_update.h): new images restart their containers,
// a new activeDeadlineSeconds moves the deadline.
#include <fmt/format.h>

#include "kubelet/podworker/pod_run.h"

namespace podlimits::kubelet::pod_run {

void PodRun::ApplySpecUpdate(const PodSpecUpdate& update) {
  if (terminating_) return;  // a pod on its way out keeps the spec it is stopped with
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

}  // namespace podlimits::kubelet::pod_run
