// What of a running pod's spec the API lets change (ValidatePodUpdate) and the node acts on,
// and the channel that brings it to the pod's worker:
//
//   a container's image    the container is killed and started again with the new image,
//                          whatever the restart policy (the kubelet's computePodActions:
//                          "Container NAME definition changed, will be restarted"); a container
//                          not running takes it at its next start
//   activeDeadlineSeconds  counted again from the pod's start with the new value (the API only
//                          lets it be set or lowered), so a lowered one already past fails the
//                          pod at once with DeadlineExceeded
//
// Init containers' images change the same way: one that completed is not run again.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "api/objects.h"
#include "base/unique_fd.h"

namespace podlimits::kubelet {

struct PodSpecUpdate {
  std::map<std::string, std::string> images;  // by container name, init and app containers
  std::optional<std::int64_t> active_deadline_seconds;
  bool operator==(const PodSpecUpdate&) const = default;
};

// The parts of `pod`'s spec that an update may change.
PodSpecUpdate SpecUpdateOf(const api::Pod& pod);

// The latest update not yet taken, with an eventfd that is readable while there is one (the pod
// worker polls it beside its stop requests). Pushed from any thread, taken by the pod's.
class PodSpecUpdates {
 public:
  PodSpecUpdates();
  void Push(PodSpecUpdate update);
  int fd() const { return fd_.get(); }
  std::optional<PodSpecUpdate> Take();

 private:
  UniqueFd fd_;
  std::mutex mu_;
  std::optional<PodSpecUpdate> pending_;
};

}  // namespace podlimits::kubelet
