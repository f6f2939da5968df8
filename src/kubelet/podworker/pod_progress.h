// Where a running pod stands, as the pod worker sees it between two turns of its loop: what the
// kubelet's status manager turns into the API's PodStatus (pod_api_status.h). The worker reports
// a new snapshot whenever one differs from the last (PodRunEnvironment::on_progress), so the node
// agent can publish container states, restarts and readiness as they change, not only at the end.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace podlimits::kubelet {

class ContainerInput;  // container_input.h

struct TerminatedState {
  int exit_code = 0;
  int signal = 0;        // set when killed by a signal (exit code 128+signal)
  std::string reason;    // Completed, Error, OOMKilled, StartError
  std::string message;   // the termination message
  std::string started_at, finished_at;  // RFC 3339, seconds ("" for a start that failed)
  std::string container_id;

  bool operator==(const TerminatedState&) const = default;
};

struct ContainerProgress {
  enum class State { kWaiting, kRunning, kTerminated };

  std::string name;
  std::string image;     // as the spec names it
  std::string image_id;  // the image's config digest, "sha256:..." ("" before it was found)
  bool init = false;
  bool sidecar = false;
  bool ephemeral = false;  // status.ephemeralContainerStatuses
  State state = State::kWaiting;
  std::string waiting_reason;   // ContainerCreating, PodInitializing, CrashLoopBackOff, ...
  std::string waiting_message;
  std::string started_at;       // kRunning: RFC 3339, seconds
  std::string container_id;     // kRunning / kTerminated: "podlimits://<id>"
  std::optional<TerminatedState> terminated;       // kTerminated
  std::optional<TerminatedState> last_terminated;  // the previous run's end
  int restart_count = 0;
  bool started = false;  // running, postStart done, startup probe passed
  bool ready = false;    // started and its readiness probe (if any) passes
  // kRunning with `stdin: true`: its input, for attach (the same object while it runs).
  std::shared_ptr<ContainerInput> input;

  bool operator==(const ContainerProgress&) const = default;
};

struct PodProgress {
  bool sandbox_ready = false;  // the pod cgroup, holder and volumes exist
  bool initialized = false;    // every init container done (sidecars started)
  std::string start_time;      // when the node took the pod, RFC 3339
  std::vector<std::string> pod_ips;  // its own addresses (pod_network.h); empty without
  // The sandbox's holder while it runs (0 before and after), whose network namespace is the
  // pod's (the node's with hostNetwork), and its runtime id: where `kubectl port-forward` dials.
  pid_t sandbox_pid = 0;
  std::string sandbox_id;
  // Init containers first, in spec order, then app containers, then ephemeral containers in
  // the order they were added.
  std::vector<ContainerProgress> containers;
  // Set once the pod's end is known: Succeeded or Failed, with reason and message when
  // something other than a container's exit decided it (DeadlineExceeded, ...).
  std::string final_phase;
  std::string reason, message;
  bool finished = false;     // torn down: nothing of the pod runs any more

  bool operator==(const PodProgress&) const = default;
};

// What a container did under an earlier worker of this same pod that died (a pod monitor
// killed: the containers' parent and subreaper, conmon's role; the new worker removes the
// containers it left), as that worker last published it. The new worker goes on from there as the kubelet does when the runtime lost
// a container (convertToAPIContainerStatuses): one that was running is gone, exit code 137,
// reason ContainerStatusUnknown, and counts a restart if the policy restarts it; one that had
// ended keeps its end, and runs again only if the policy says so. The restart count and the last
// termination carry over, so logs go on in the next <restart>.log. An ephemeral container is
// never restarted: one that ran keeps its end (or the lost one), one that never ran starts.
struct ContainerHistory {
  std::string name;
  int restart_count = 0;
  bool was_running = false;
  std::optional<TerminatedState> terminated;       // its state, if it had ended
  std::optional<TerminatedState> last_terminated;  // lastState
};

}  // namespace podlimits::kubelet
