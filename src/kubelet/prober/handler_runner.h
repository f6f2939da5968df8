// Running a probe's or a lifecycle hook's action against a running container, as the kubelet's
// prober and handler runner do:
//
//   exec       the runtime's exec in the container (CRI ExecSync); exit 0 succeeds, the output
//              (stdout then stderr) is the probe's output; past the timeout it fails with
//              `command "sh -c sleep 5" timed out`.
//   httpGet    HTTP/1.1 GET (HTTPS without verifying the certificate, as the kubelet), with the
//              kubelet's headers (User-Agent: kube-probe/1.32, Accept: */*) and the probe's;
//              200-399 succeeds, a redirect to a path on the same server is followed (at most
//              10), one elsewhere is a warning (`Probe terminated redirects, ...`), another status
//              fails with `HTTP probe failed with statuscode: 500`, a transport error with Go's
//              words: `Get "http://127.0.0.1:8080/": dial tcp 127.0.0.1:8080: connect:
//              connection refused`.
//   tcpSocket  a TCP connect: `dial tcp 127.0.0.1:8080: connect: connection refused`,
//              `dial tcp 127.0.0.1:8080: i/o timeout`.
//   sleep      (hooks) waits, cut short when the run is cancelled.
//
// Without `host`, network actions connect to the pod itself: 127.0.0.1 inside the pod's network
// namespace (the sandbox holder's), which is where a pod IP would lead on a node without pod
// networking. With `host`, the node connects from its own network namespace, as the kubelet.
// A port may name one of the container's ports.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <string>

#include "api/objects.h"
#include "base/error.h"
#include "cri/container_runtime.h"

namespace podlimits::kubelet {

enum class ProbeResult { kSuccess, kWarning, kFailure, kUnknown };

struct ActionOutcome {
  ProbeResult result = ProbeResult::kUnknown;
  std::string output;  // kSuccess/kWarning/kFailure: what the action said
  std::string error;   // kUnknown: why it could not run
  int http_status = 0;  // httpGet: the status the server answered with; 0 when none
  int exit_code = -1;   // exec: the command's exit code; -1 when it did not exit by itself
  std::string error_output;  // exec: its stderr
};

struct ActionTarget {
  cri::ContainerRuntime* runtime = nullptr;
  std::string container_id;
  const api::Container* container = nullptr;  // for named ports
  pid_t netns_pid = 0;  // the process whose network namespace is the pod's; 0: the node's
  // The pod's own address (pod_network.h). Set: an httpGet, tcpSocket or grpc action without a
  // host connects to it from the node, as the kubelet's prober does. Empty (no pod network):
  // to 127.0.0.1 inside netns_pid's namespace, where the pod's address would have led.
  std::string pod_ip;
  const std::atomic<bool>* cancelled = nullptr;  // sleep and waits stop early when set
};

ActionOutcome RunAction(const api::HandlerAction& action, const ActionTarget& target,
                        std::chrono::milliseconds timeout);

// The port number an action names: a number, or the name of one of the container's ports, else
// `couldn't find port: http in container "web"` (the kubelet's ResolvePort prints the whole
// container struct after "in"; its name is what a user needs).
Result<int> ResolvePort(const std::string& port,
                                            const api::Container& container);

}  // namespace podlimits::kubelet
