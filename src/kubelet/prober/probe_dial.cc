#include "kubelet/prober/probe_dial.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <thread>

namespace podlimits::kubelet {

using Clock = std::chrono::steady_clock;

// Go's syscall.Errno text: strerror, lowercased first letter ("connection refused").
std::string GoErrno(int e) {
  std::string s = std::strerror(e);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

// poll(2) until the deadline in slices of at most 100 ms, so that a cancelled run (the pod is being
// torn down) stops waiting: > 0 ready, 0 timed out or cancelled, < 0 an error.
int PollUntil(pollfd& p, Clock::time_point deadline, const std::atomic<bool>* cancelled) {
  while (true) {
    if (cancelled != nullptr && cancelled->load()) return 0;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return 0;
    const int n = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 100)));
    if (n != 0) return n;
  }
}


namespace {

// A TCP socket in the network namespace of `netns_pid` (0: this one). setns changes only the
// calling thread, so a short-lived thread enters the namespace and makes the socket; the socket
// stays in that namespace wherever it is used.
Result<UniqueFd> Socket(pid_t netns_pid, int family) {
  auto make = [family]() -> Result<UniqueFd> {
    UniqueFd fd(socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd) return Failure(fmt::format("socket: {}", GoErrno(errno)));
    return fd;
  };
  if (netns_pid == 0) return make();
  const std::string ns_path = fmt::format("/proc/{}/ns/net", netns_pid);
  UniqueFd ns(open(ns_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!ns) return Failure(fmt::format("open {}: {}", ns_path, GoErrno(errno)));
  Result<UniqueFd> out = Failure("no socket");
  std::thread t([&] {
    if (setns(ns.get(), CLONE_NEWNET) != 0) {
      out = Failure(fmt::format("setns {}: {}", ns_path, GoErrno(errno)));
      return;
    }
    out = make();
  });
  t.join();
  return out;
}

struct Address {
  int family = AF_INET;
  sockaddr_storage storage{};
  socklen_t len = 0;
  std::string text;  // "127.0.0.1:8080", "[::1]:8080"
};

Result<Address> Resolve(const std::string& host, int port) {
  Address a;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&a.storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&a.storage);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port));
    a.len = sizeof *v4;
    a.text = fmt::format("{}:{}", host, port);
    return a;
  }
  if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port));
    a.family = AF_INET6;
    a.len = sizeof *v6;
    a.text = fmt::format("[{}]:{}", host, port);
    return a;
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0 || found == nullptr) {
    return Failure(fmt::format("dial tcp: lookup {}: {}", host, gai_strerror(rc)));
  }
  std::memcpy(&a.storage, found->ai_addr, found->ai_addrlen);
  a.len = found->ai_addrlen;
  a.family = found->ai_family;
  if (a.family == AF_INET) v4->sin_port = htons(static_cast<std::uint16_t>(port));
  if (a.family == AF_INET6) v6->sin6_port = htons(static_cast<std::uint16_t>(port));
  freeaddrinfo(found);
  a.text = fmt::format("{}:{}", host, port);
  return a;
}

}  // namespace

// net.DialTimeout("tcp", ...): the connected socket, or Go's error text.
Result<UniqueFd> Dial(const std::string& host, int port, pid_t netns_pid,
                      Clock::time_point deadline, const std::atomic<bool>* cancelled,
                      std::string_view network) {
  auto addr = Resolve(host, port);
  if (!addr) return std::unexpected(addr.error());
  auto fd = Socket(netns_pid, addr->family);
  if (!fd) return std::unexpected(std::move(fd.error()).Wrap(fmt::format("dial {} {}", network, addr->text)));
  if (connect(fd->get(), reinterpret_cast<sockaddr*>(&addr->storage), addr->len) != 0) {
    if (errno != EINPROGRESS) {
      return Failure(
          fmt::format("dial {} {}: connect: {}", network, addr->text, GoErrno(errno)));
    }
    pollfd p{fd->get(), POLLOUT, 0};
    int n = PollUntil(p, deadline, cancelled);
    if (n == 0) return Failure(fmt::format("dial {} {}: i/o timeout", network, addr->text));
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd->get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (n < 0) err = errno;
    if (err != 0) {
      return Failure(
          fmt::format("dial {} {}: connect: {}", network, addr->text, GoErrno(err)));
    }
  }
  return std::move(*fd);
}

}  // namespace podlimits::kubelet
