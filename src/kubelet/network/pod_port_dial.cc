#include "kubelet/network/pod_port_dial.h"

#include <fmt/format.h>

#include <chrono>

#include "kubelet/prober/probe_dial.h"

namespace podlimits::kubelet {

namespace {
// Loopback answers at once or refuses; a port that does neither (a full backlog) is given up on.
constexpr auto kDialTimeout = std::chrono::seconds(5);
}  // namespace

Result<UniqueFd> DialPodPort(pid_t sandbox_pid, const std::string& sandbox_id, int port) {
  auto fail = [&](const std::string& why) {
    return Failure(
        fmt::format("error forwarding port {} to pod {}, uid : {}", port, sandbox_id, why));
  };
  if (sandbox_pid <= 0) return fail("the pod's sandbox is not running");
  const auto deadline = std::chrono::steady_clock::now() + kDialTimeout;
  auto v4 = Dial("127.0.0.1", port, sandbox_pid, deadline, nullptr, "tcp4");
  if (!v4) {
    auto v6 = Dial("::1", port, sandbox_pid, deadline, nullptr, "tcp6");
    if (!v6) {
      return fail(fmt::format("failed to connect to localhost:{} inside namespace \"{}\", IPv4: {} "
                              "IPv6 {} ",
                              port, sandbox_id, v4.error().Message(), v6.error().Message()));
    }
    v4 = std::move(v6);
  }
  return std::move(*v4);
}

}  // namespace podlimits::kubelet
