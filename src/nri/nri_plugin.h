// What `podlimits nri` answers to each call of NRI's Plugin service, without the socket
// (nri_connection.h carries the bytes). The decision is podlimits-runc's (runcwrap/
// create_plan.h), on the same annotations, so a pod gets the same limits and the same refusals
// under either:
//
//   Configure        subscribes to RunPodSandbox, CreateContainer, PostStartContainer and the
//                    removals (RemovePodSandbox, RemoveContainer).
//   Synchronize      nothing to change in what already runs (its limits were set when it
//                    started); split requests are acknowledged as NRI expects.
//   RunPodSandbox    (StateChange) the pod cgroup's pids.max lowered to the pod's limit (never
//                    raised above the node's podPidsLimit the kubelet wrote), and for a pod with
//                    a writable container cgroup.max.descendants / max.depth, each read back.
//   CreateContainer  the container's rlimits (its ulimits, then the node's defaultUlimits) and,
//                    for a writable container, a read-write cgroup2 mount at /sys/fs/cgroup, as
//                    the container adjustment; the pod cgroup's limits checked again (a pod
//                    cgroup that vanished fails the create).
//   PostStartContainer  the container's /proc/<pid>/limits read back against the grant, and
//                    corrected with a warning where the runtime left another value.
//   anything refused: CreateContainer fails with one message (the KEP's, or the validation
//                    error the webhook would give for the annotation), so it reaches the
//                    runtime's log and the pod's events. A pod refused at RunPodSandbox is
//                    logged there and refused at each container: containerd 2.x leaks a sandbox
//                    whose NRI RunPodSandbox fails (nri_plugin.cc).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "nri/nri_config.h"
#include "nri/nri_messages.h"
#include "nri/ttrpc_wire.h"
#include "runcwrap/bundle_request.h"
#include "runcwrap/create_plan.h"

namespace podlimits::nri {

// The subscription ConfigureResponse carries.
std::int32_t SubscribedEvents();

// The writable cgroup mount the adjustment adds (the options podlimits-runc writes into a
// bundle: runcwrap/spec_edit.h).
Mount WritableCgroupMount();

// The annotations ReadBundleRequest reads for a pod's sandbox (container == nullptr) or one of
// its containers: the pod's annotations, the container's where the pod's do not set the key,
// and containerd's io.kubernetes.cri.* names of what the bundle is.
codec::Node BundleAnnotations(const PodSandbox& pod, const Container* container);

struct NriPluginSeams {
  // What the node can do for a request: runcwrap::ProbeNodeFacts on a real node.
  std::function<runcwrap::NodeFacts(const runcwrap::BundleRequest&)> probe_node;
  // Read-back after start (cri::CorrectProcessLimits on a real node); returns the warnings.
  std::function<Result<std::vector<std::string>>(std::uint32_t pid,
                                                  const std::vector<PosixRlimit>& wanted)>
      read_back;
};
NriPluginSeams RealNodeSeams();

class NriPlugin {
 public:
  using Log = std::function<void(std::string_view level, std::string_view message)>;
  NriPlugin(NriConfig config, NriPluginSeams seams, Log log);

  // One call of the Plugin service (kPluginService). A method this plugin does not implement is
  // answered Unimplemented with ttrpc's own words ("method X"), a malformed payload
  // InvalidArgument, a refusal FailedPrecondition.
  TtrpcResponse Handle(const TtrpcRequest& request);

  bool ShutdownRequested() const { return shutdown_; }
  bool Configured() const { return configured_; }
  // The connection is gone: the next one starts unconfigured (what was granted is kept for the
  // containers still running).
  void ConnectionEnded() {
    shutdown_ = false;
    configured_ = false;
  }

 private:
  TtrpcResponse StateChange(std::string_view payload);
  TtrpcResponse CreateContainer(std::string_view payload);
  Result<void> RunPodSandbox(const PodSandbox& pod);
  Result<ContainerAdjustment> Adjust(const PodSandbox& pod, const Container& container);
  void ReadBack(const PodSandbox& pod, const Container& container);

  NriConfig config_;
  NriPluginSeams seams_;
  Log log_;
  bool shutdown_ = false;
  bool configured_ = false;
  // The rlimits granted to each container still there, for the read-back after start.
  struct Granted {
    std::string pod_id;
    std::vector<PosixRlimit> rlimits;
  };
  std::map<std::string, Granted, std::less<>> granted_;
};

}  // namespace podlimits::nri
