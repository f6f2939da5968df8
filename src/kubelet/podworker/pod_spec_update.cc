#include "kubelet/podworker/pod_spec_update.h"

#include <sys/eventfd.h>
#include <unistd.h>

namespace podlimits::kubelet {

PodSpecUpdate SpecUpdateOf(const api::Pod& pod) {
  PodSpecUpdate update;
  for (const auto* list : {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const api::Container& c : *list) update.images[c.name] = c.image;
  }
  update.active_deadline_seconds = pod.spec.active_deadline_seconds;
  return update;
}

PodSpecUpdates::PodSpecUpdates() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

void PodSpecUpdates::Push(PodSpecUpdate update) {
  {
    std::lock_guard lock(mu_);
    pending_ = std::move(update);  // only the latest counts: it is the whole spec's view
  }
  std::uint64_t one = 1;
  (void)!write(fd_.get(), &one, sizeof one);
}

std::optional<PodSpecUpdate> PodSpecUpdates::Take() {
  std::uint64_t count = 0;
  (void)!read(fd_.get(), &count, sizeof count);
  std::lock_guard lock(mu_);
  std::optional<PodSpecUpdate> update = std::move(pending_);
  pending_.reset();
  return update;
}

}  // namespace podlimits::kubelet
