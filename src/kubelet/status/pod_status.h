// The status object `podlimits run -o json` ends with: what the pod became on this node, as read
// back from the kernel rather than as asked for.
//
//   {"apiVersion": "podlimits.dev/v1alpha1", "kind": "PodRunStatus",
//    "pod": {"name", "namespace", "uid"}, "qosClass", "phase", "reason", "message",
//    "cgroup": {"path": "/kubepods/besteffort/pod<uid>", "pidsMax": 1024 | "max",
//               "kubepodsPidsMax", "maxDescendants", "maxDepth",
//               "hierarchies": [{"version": "v1"|"v2", "dir", "pidsMax"}]},
//    "containers": [{"name", "init", "sidecar", "exitCode", "reason", "message", "restarts",
//                    "rlimits": {"core": {"soft": N | "unlimited", "hard": ...}, "memlock",
//                                "nice", "nofile", "rtprio", "stack"}}],
//    "events": [{"type", "reason", "message"}],
//    "metrics": {"kubelet_pod_pid_limit_applied_total": N}}
//
// "rlimits" holds the six ulimit names of KEP-5758 as /proc/<pid>/limits showed them for the
// container's init process after create (and any correction), before it started.
//
// Every outcome once the pod was decoded ends with this object. A pod that failed on the node
// says why in "reason" (the event's: ErrImageNeverPull, FailedCreatePodSandBox, ...) and
// "message"; one that never ran (RejectedPodStatusTree: API admission, node admission, its uid
// in use) has phase Failed, "reason" and "message" as the kubelet's rejectPod sets them ("Pod was
// rejected: ..."; for API admission the apiserver's reason and Status.message), the events so
// far, and no cgroup or containers.
#pragma once

#include <string>
#include <vector>

#include "codec/node.h"
#include "kubelet/events/events.h"
#include "kubelet/metrics/metrics.h"
#include "kubelet/plan/pod_plan.h"
#include "kubelet/podworker/pod_runner.h"

namespace podlimits::kubelet {

codec::Node PodRunStatusTree(const PodPlan& plan, const PodRunResult& result,
                           const std::vector<Event>& events, MetricsRegistry& metrics);

struct RejectedPod {
  std::string name;
  std::string namespace_;
  std::string uid;        // the manifest's, or the one planned; "" when there is none yet
  std::string qos_class;  // "" when the pod was not admitted (no defaults applied)
  std::string reason;
  std::string message;
};

codec::Node RejectedPodStatusTree(const RejectedPod& pod, const std::vector<Event>& events,
                                MetricsRegistry& metrics);

}  // namespace podlimits::kubelet
