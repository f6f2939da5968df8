// The node agent as a library: what `podlimits run` (one pod, one shot), `node-info` and the
// node daemon call, as cmd/kubelet is a shell around pkg/kubelet.
//
//   Probe()    what the node is and declares, changing nothing: the node config's managed
//              controllers against the cgroup mode, capacity and allocatable pids (a kubelet
//              with reservations above capacity does not start), the runtime, the declared
//              features, the rlimit ceilings. node-info stops here.
//   Start()    Probe(), then what a node needs before its first pod, once per process: root,
//              a usable runtime, the subreaper, the cgroup layout and the hierarchies podlimits
//              manages, the runtime's private mount namespace. A node whose cgroups cannot be
//              managed still starts: node admission answers pods with the kubelet's words, and
//              the first pod it admits fails with the cgroup error.
//   RunPod()   one admitted pod (its tree and typed view, api::PodObject) to its end: node admission
//              (field coverage, then declared features and rlimit ceilings; nothing is created
//              for a pod the node refuses), the plan, the claim of its uid, the clean-up of what dead runs
//              left, the pod worker (pod_runner.h), teardown. Safe to call from several threads
//              at once for different pods.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/objects.h"
#include "api/pod_object.h"
#include "base/error.h"
#include "cgroups/detect.h"
#include "cgroups/hierarchies.h"
#include "cri/container_output.h"
#include "cri/container_runtime.h"
#include "image/snapshotter.h"
#include "image/store.h"
#include "kubelet/cm/node_capabilities.h"
#include "kubelet/cm/pid_capacity.h"
#include "kubelet/config/node_config.h"
#include "kubelet/events/events.h"
#include "kubelet/lifecycle/declared_features.h"
#include "kubelet/metrics/metrics.h"
#include "kubelet/network/pod_network.h"
#include "kubelet/plan/pod_plan.h"
#include "kubelet/podworker/pod_runner.h"
#include "kubelet/volumes/object_source.h"

namespace podlimits::kubelet {

struct KubeletOptions {
  NodeConfig config;
  std::filesystem::path image_root;  // empty: the image store's default
  std::string path_env;              // PATH the runtime is looked up in
  bool runtime_version = false;      // Probe runs `<runtime> --version` (node-info)
  // The node's address (serve's NodeInternalIP): status.hostIP(s) for the downward API, and
  // status.podIP(s) of a hostNetwork pod. Empty: unknown, and those fields are refused.
  std::string node_ip = {};
};

// Why the node cannot take pods: the reason (base/error.h) of Probe's and Start's errors, and the
// status reason of the pods it could not run.
// The node config asks for what this node cannot do (the CLI's exit 2).
inline constexpr std::string_view kInvalidNodeConfiguration = "InvalidNodeConfiguration";
// The node or its runtime (exit 3).
inline constexpr std::string_view kNodeFailure = "NodeFailure";

// How a RunPod ended.
struct PodOutcome {
  enum class Kind {
    kRan,          // the pod ran (result says how it ended)
    kRejected,     // node admission refused it, or its uid is in use: nothing was created
    kNodeFailure,  // the node could not run it
  };
  Kind kind = Kind::kRan;
  std::string reason;           // kRejected / kNodeFailure: the status reason
  std::string status_message;   // kRejected / kNodeFailure: the status message
  std::string error;            // kRejected / kNodeFailure: the one-line error for a CLI
  std::optional<PodPlan> plan;  // once planned
  PodRunResult result;          // kRan
};

// What RunPod reports to, and listens to, while the pod runs.
struct PodRunIo {
  EventRecorder* events = nullptr;    // required: every event of the pod, as it happens
  cri::ContainerOutput* output = nullptr;  // required: the containers' stdout and stderr
  PodStop* stop = nullptr;            // optional: the caller's stop requests
  // optional: the ConfigMaps and Secrets the pod may read (none exist when unset)
  const ObjectSource* objects = nullptr;
  // optional: where the pod stands, whenever that changes (pod_progress.h)
  std::function<void(const PodProgress&)> on_progress;
  // optional: a node that keeps pods retries CreateContainerConfigError (pod_runner.h)
  std::optional<std::chrono::milliseconds> config_retry;
  // optional: the containers' history under an earlier worker of this pod (pod_runner.h)
  std::vector<ContainerHistory> history;
  // optional: changes of the running pod's spec the API allowed (pod_spec_update.h)
  PodSpecUpdates* spec_updates = nullptr;
};

class Kubelet {
 public:
  explicit Kubelet(KubeletOptions options);
  ~Kubelet();
  Kubelet(const Kubelet&) = delete;
  Kubelet& operator=(const Kubelet&) = delete;

  Result<void> Probe();  // errors: kInvalidNodeConfiguration or kNodeFailure
  Result<void> Start();  // errors: kInvalidNodeConfiguration or kNodeFailure
  PodOutcome RunPod(const api::PodObject& pod, const PodRunIo& io);
  // What an update of the running `pod` asks of its worker (pod_spec_update.h): SpecUpdateOf,
  // and its ephemeral containers planned as RunPod plans containers (node admission's rlimits).
  PodSpecUpdate PlanSpecUpdate(const api::Pod& pod);

  const NodeConfig& config() const { return options_.config; }
  const NodeCapabilities& capabilities() const { return caps_; }
  const DeclaredFeatures& features() const { return features_; }
  const PidCapacity& pid_capacity() const { return pid_capacity_; }
  MetricsRegistry& metrics() { return metrics_; }
  // The container runtime, once Start() succeeded (nullptr before).
  cri::ContainerRuntime* runtime() { return runtime_.get(); }

 private:
  KubeletOptions options_;
  NodeCapabilities caps_;
  DeclaredFeatures features_;
  PidCapacity pid_capacity_;
  MetricsRegistry metrics_;
  std::optional<cgroups::CgroupLayout> layout_;
  std::vector<std::string> host_capabilities_;
  std::unique_ptr<cri::ContainerRuntime> runtime_;
  std::unique_ptr<image::ImageStore> images_;
  std::unique_ptr<PodNetwork> network_;  // podNetwork cni only
  image::OverlaySnapshotter snapshotter_;
  Result<void> PrepareCgroups();
  // The pod worker's environment for one pod: this node's parts and the caller's io.
  PodRunEnvironment PodEnvironment(std::vector<cgroups::ManagedHierarchy> hierarchies,
                                   EventRecorder& events, const PodRunIo& io);
  // Chooses each container's AppArmor profile and loads the default one when first needed.
  Result<void> PlanAppArmor(PodPlan& plan);

  // Guards caps_.apparmor.loaded, which loading the default profile changes while other pods
  // are admitted.
  std::mutex apparmor_mu_;

  Result<void> cgroups_ready_ = Failure("the node is not started");
  bool probed_ = false;
  bool started_ = false;
};

}  // namespace podlimits::kubelet
