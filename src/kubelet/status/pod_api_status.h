// The API's PodStatus for a pod on this node, as the kubelet's generateAPIPodStatus and status
// manager produce it from where the pod stands (pod_progress.h):
//
//   phase        getPhase: Pending while init containers run or a container waits for its
//                first start; Running while a container runs (or, under restartPolicy Always,
//                waits to restart); Succeeded / Failed once the node says the pod ended
//   conditions   PodReadyToStartContainers, Initialized, Ready, ContainersReady, PodScheduled,
//                with the kubelet's reasons and messages ("containers with unready status:
//                [web]", PodCompleted) and lastTransitionTime kept while a status holds
//   initContainerStatuses, containerStatuses  state, lastState, ready, restartCount, image,
//                imageID, containerID, started
//   hostIP(s), podIP(s), startTime, qosClass, and reason/message for a pod the node failed
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codec/node.h"
#include "kubelet/podworker/pod_progress.h"

namespace podlimits::kubelet {

struct PodStatusContext {
  std::string restart_policy = "Always";
  std::string qos_class;
  std::string host_ip;  // the node's address ("" leaves hostIP out)
  std::string pod_ip;   // hostNetwork: the node's; a pod network's come with the progress
};

// `previous` is the status published before (or null): a condition whose status did not change
// keeps its lastTransitionTime. `now` is the API time (RFC 3339, seconds) of this status.
codec::Node PodApiStatus(const PodProgress& progress, const PodStatusContext& context,
                       const codec::Node* previous, std::string_view now);

// The containers of a published PodStatus, read back: what a new worker of the same pod goes on
// from (ContainerHistory, pod_progress.h). Init, app and ephemeral containers alike, by name
// (unique across the three).
std::vector<ContainerHistory> ContainerHistoryFromStatus(const codec::Node& status);

// getPhase's answer while the pod runs (final_phase unset).
std::string RunningPodPhase(const PodProgress& progress, std::string_view restart_policy);

}  // namespace podlimits::kubelet
