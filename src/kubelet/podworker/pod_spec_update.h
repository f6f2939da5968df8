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
//   ephemeralContainers    each one not yet known is started in the running pod (the pods/
//                          ephemeralcontainers subresource only adds them): in the pod cgroup,
//                          the sandbox's namespaces and, with targetContainerName, that
//                          container's PID namespace; its rlimits planned as any container's
//                          (node admission's grant); never restarted
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
#include "kubelet/plan/pod_plan.h"

namespace podlimits::kubelet {

// An ephemeral container as the node plans it: its plan, or why the node cannot run it (node
// admission's message for an rlimit it cannot grant).
struct EphemeralContainerPlan {
  ContainerPlan plan;
  std::string refused;
};

struct PodSpecUpdate {
  std::map<std::string, std::string> images;  // by container name, init and app containers
  std::optional<std::int64_t> active_deadline_seconds;
  std::vector<EphemeralContainerPlan> ephemeral_containers;  // in spec order
};

// The parts of `pod`'s spec that an update may change (no ephemeral containers: they need the
// node's plan, Kubelet::PlanSpecUpdate).
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
