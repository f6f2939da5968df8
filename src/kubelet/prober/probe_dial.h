// The network side of probes and hooks: TCP connections made from a pod's network namespace,
// waits that stop when the pod is torn down, and Go's wording of what went wrong (the kubelet's
// messages quote its Go errors).
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>

#include "base/error.h"
#include "base/unique_fd.h"

namespace podlimits::kubelet {

// Go's syscall.Errno text: strerror, lowercased first letter ("connection refused").
std::string GoErrno(int e);

// poll(2) until the deadline in slices of at most 100 ms, so that a cancelled run stops waiting:
// > 0 ready, 0 timed out or cancelled, < 0 an error.
int PollUntil(pollfd& p, std::chrono::steady_clock::time_point deadline,
              const std::atomic<bool>* cancelled);

// net.DialTimeout("tcp", host:port) from the network namespace of `netns_pid` (0: this one):
// the connected, non-blocking socket, or an error whose message is Go's text (`dial tcp 127.0.0.1:80: connect:
// connection refused`, `dial tcp 127.0.0.1:80: i/o timeout`). `network` is Go's name in that
// text ("tcp4" for net.Dial("tcp4", ...)).
Result<UniqueFd> Dial(const std::string& host, int port, pid_t netns_pid,
                      std::chrono::steady_clock::time_point deadline,
                      const std::atomic<bool>* cancelled, std::string_view network = "tcp");

}  // namespace podlimits::kubelet
