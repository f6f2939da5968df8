// Running one admitted, planned pod to completion on this node, as the kubelet's SyncPod and
// pod workers do for a pod bound to it:
//
//   1. every image is looked up before anything is created (a missing one fails the pod with
//      ErrImageNeverPull: podlimits never pulls)
//   2. the pod's sandbox (pod_sandbox.h): its state directory and record, image leases, and the
//      pod cgroup with its limits written and read back before any container process exists;
//      PIDLimitCapped is recorded then
//   3. init containers run one at a time, in order, each to a successful exit; a sidecar
//      (restartPolicy: Always) is started and left running
//   4. the app containers start, in order; restartPolicy decides what an exit means: Never
//      (done), OnFailure (restart unless it exited 0), Always (restart); restarts back off as
//      the kubelet's do (immediately, then 10 s doubling to 300 s) with a BackOff event. A
//      container the runtime refuses to create or start (say its command does not exist) has
//      failed like one that exited: StartError, exit code 128, a Failed event, restartPolicy
//   5. once every app container is done, the sidecars are stopped in reverse order
//   6. a stop request (PodStop; `run` makes one of SIGINT, SIGTERM, SIGHUP, SIGPIPE) stops the
//      pod: SIGTERM to every container (Killing events), SIGKILL after the grace period (a
//      second request: at once)
//   7. teardown, whatever happened: every container's processes killed through its cgroup and
//      the container deleted from the runtime, its overlay unmounted and bundle removed, then
//      the sandbox (only what this run created)
//
// Events stream to the recorder as they happen. One poll loop per pod, over the containers'
// output pipes, a pidfd per container init process and the stop request's eventfd; nothing
// process-wide (no signal handling), so several pods run at once, each on its own thread.
// podlimits is the containers' subreaper: each init process is its child, owned through the
// ChildReaper (base/child_reaper.h) while the pod waits for it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cgroups/hierarchies.h"
#include "cgroups/pod_cgroups.h"
#include "cri/process_limits.h"
#include "image/store.h"
#include "base/fs.h"
#include "kubelet/podworker/container_lifecycle.h"
#include "cri/container_output.h"
#include "kubelet/events/events.h"
#include "kubelet/volumes/object_source.h"
#include "kubelet/metrics/metrics.h"
#include "kubelet/podworker/pod_holder.h"
#include "kubelet/network/pod_network.h"
#include "kubelet/plan/pod_plan.h"
#include "kubelet/podworker/pod_progress.h"
#include "kubelet/podworker/pod_spec_update.h"

namespace podlimits::kubelet {

// Asks a running pod to stop, from any thread: the first request stops it gracefully (SIGTERM,
// then SIGKILL after the grace period), a second one kills at once.
class PodStop {
 public:
  PodStop();
  void Request();
  // A stop whose grace period is `grace_seconds` instead of the pod's
  // terminationGracePeriodSeconds (a delete's gracePeriodSeconds); the shortest asked for wins.
  void Request(std::int64_t grace_seconds);
  std::optional<std::int64_t> grace_seconds() const {
    const std::int64_t g = grace_.load();
    return g < 0 ? std::nullopt : std::optional<std::int64_t>(g);
  }
  // Readable while requests are pending (an eventfd).
  int fd() const { return fd_.get(); }
  // The requests made since the last call.
  int Take();

 private:
  UniqueFd fd_;
  std::atomic<std::int64_t> grace_{-1};
};

// The kubelet's container restart back-off (pkg/kubelet/kubelet.go: backOffPeriod 10 s,
// MaxContainerBackOff 300 s), reset after a container ran for 10 minutes.
struct RestartBackOff {
  std::chrono::milliseconds initial{10000};
  std::chrono::milliseconds max{300000};
  std::chrono::milliseconds reset_after{600000};
};

// The end the kubelet gives a running container the runtime no longer has.
TerminatedState LostContainerState();

struct PodRunEnvironment {
  cri::ContainerRuntime* runtime = nullptr;
  image::Snapshotter* snapshotter = nullptr;
  const image::ImageStore* images = nullptr;
  std::vector<cgroups::ManagedHierarchy> hierarchies;  // RunPod moves them into the pod cgroup
  std::filesystem::path state_dir;                     // NodeConfiguration stateDirectory
  std::vector<std::string> host_capabilities;
  cri::SeccompSettings seccomp;
  std::filesystem::path sandbox_holder = "/usr/bin/catatonit";  // pod_holder.h
  HolderStarter start_holder = cri::StartNamespaceHolder;
  // The node's pod network (pod_network.h); unset: pods have loopback only.
  const PodNetwork* network = nullptr;
  std::string node_ip;  // the node's address, when known (KubeletOptions::node_ip)
  EventRecorder* events = nullptr;
  MetricsRegistry* metrics = nullptr;
  cri::ContainerOutput* output = nullptr;  // where each container's stdout and stderr go
  PodStop* stop = nullptr;            // unset: the pod runs until it ends by itself
  PodSpecUpdates* spec_updates = nullptr;  // unset: the spec stays as planned
  const ObjectSource* objects = nullptr;  // the ConfigMaps and Secrets the pod may read
  api::ResourceList allocatable;          // the node's (node_resources.h), for the downward API
  RestartBackOff backoff;
  // Called from the pod's thread whenever where the pod stands changed (pod_progress.h); the
  // last call has `finished` set.
  std::function<void(const PodProgress&)> on_progress;
  // A container whose configuration cannot be made (CreateContainerConfigError: a ConfigMap,
  // Secret or key that does not exist, a user it cannot run as). Unset, as a one-shot run has
  // it: the pod fails, since nothing can change what it asks. Set, on a node that keeps pods:
  // the container waits, and is tried again after this period plus up to half of it (the pod
  // worker's backOffPeriod, 10 s, with its jitter), as the kubelet's next sync of the pod does.
  std::optional<std::chrono::milliseconds> config_retry;
  // The containers' history under an earlier worker of this pod (pod_progress.h; empty: the
  // pod's first run).
  std::vector<ContainerHistory> history;
  // The ephemeral containers the pod already has when this worker starts it (a worker taking
  // over from one that died; the API refuses them on create). Each is never restarted: one with
  // a history ran, and keeps how it ended (a running one was lost: 137, ContainerStatusUnknown);
  // one without starts once the pod's first containers have, as the kubelet's sync after a new
  // sandbox starts those it has no status of (computePodActions).
  std::vector<EphemeralContainerPlan> ephemeral_containers;
};

struct ContainerRunResult {
  std::string name;
  bool init = false;
  bool sidecar = false;
  bool started = false;
  std::optional<int> exit_code;  // the last run's; 128+N when killed by signal N; 128: StartError
  // The kubelet's terminated reason for the last run: Completed, Error or StartError; and for
  // StartError what the runtime said.
  std::string reason;
  std::string message;
  int restarts = 0;                       // how often it was started again after its first run
  std::vector<cri::ProcessLimit> limits;  // /proc/<pid>/limits of the last run, before start
  int seccomp_mode = 0;  // /proc/<pid>/status Seccomp of the last run: 2 is a filter
};

struct PodRunResult {
  std::string phase;                                // "Succeeded" or "Failed"
  bool node_failure = false;                        // the node or runtime failed (not the workload)
  // Set when something other than a container's exit failed the pod: the node (with
  // node_failure), a container config, a volume, the active deadline.
  std::string failure_reason;  // its event reason (ErrImageNeverPull, FailedMount, ...)
  std::string failure;         // what failed
  bool interrupted = false;                         // stopped by a PodStop request
  std::optional<cgroups::AppliedPodCgroup> cgroup;  // as read back after writing
  std::vector<ContainerRunResult> containers;       // init containers first, in spec order
  std::vector<std::string> teardown_errors;         // empty when everything was removed
};

PodRunResult RunPod(const PodPlan& plan, PodRunEnvironment& env);

}  // namespace podlimits::kubelet
