#include "cri/exec_wire.h"

#include "field/field.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

namespace podlimits::cri {

namespace fs = std::filesystem;

namespace {

// Large enough for any request: a command line is bounded by the apiserver's request size.
constexpr std::size_t kMaxMessage = 1 << 20;
constexpr std::size_t kMaxFds = 3;

}  // namespace

std::string ShortSocketPath(int dir_fd, std::string_view name) {
  return fmt::format("/proc/self/fd/{}/{}", dir_fd, name);
}

std::string ContainerNotFound(std::string_view container) {
  return fmt::format("container not found ({})", field::GoQuote(container));
}

sockaddr_un UnixAddress(std::string_view path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), std::min(path.size(), sizeof addr.sun_path - 1));
  return addr;
}

Result<void> SendExecMessage(int socket, std::string_view json, std::span<const int> fds) {
  if (fds.size() > kMaxFds) return Failure("send on the exec socket: too many descriptors");
  iovec iov{const_cast<char*>(json.data()), json.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  for (;;) {
    if (sendmsg(socket, &msg, MSG_NOSIGNAL) >= 0) return {};
    if (errno != EINTR) return SystemError("send on the exec socket", {}, errno);
  }
}

Result<ExecMessage> ReceiveExecMessage(int socket) {
  ExecMessage out;
  out.json.resize(kMaxMessage);
  iovec iov{out.json.data(), out.json.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return SystemError("receive on the exec socket", {}, errno);
  out.json.resize(static_cast<std::size_t>(n));
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      out.fds.emplace_back(fd);
    }
  }
  if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
    return Failure("receive on the exec socket: message truncated");
  }
  return out;
}

Result<UniqueFd> ConnectExecSocket(const fs::path& monitor_dir) {
  UniqueFd dir(open(monitor_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return SystemError("open", monitor_dir, errno);
  sockaddr_un addr = UnixAddress(ShortSocketPath(dir.get(), kExecSocketFile));
  UniqueFd fd(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!fd) return SystemError("socket", monitor_dir / kExecSocketFile, errno);
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return SystemError("connect", monitor_dir / kExecSocketFile, errno);
  }
  return fd;
}

}  // namespace podlimits::cri
