#include "cri/console_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace podlimits::cri {

namespace fs = std::filesystem;

Result<ConsoleSocket> ConsoleSocket::Listen(const fs::path& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string text = path.string();
  if (text.size() >= sizeof addr.sun_path) {
    return Failure("listen on console socket", path,
                   "the path is longer than a unix socket's " +
                       std::to_string(sizeof addr.sun_path - 1) + " bytes");
  }
  std::memcpy(addr.sun_path, text.c_str(), text.size() + 1);
  UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) return SystemError("socket", path, errno);
  unlink(text.c_str());
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return SystemError("bind", path, errno);
  }
  if (listen(fd.get(), 1) != 0) {
    int e = errno;
    unlink(text.c_str());
    return SystemError("listen", path, e);
  }
  return ConsoleSocket(path, std::move(fd));
}

ConsoleSocket::ConsoleSocket(ConsoleSocket&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::move(other.fd_)) {
  other.path_.clear();
}

ConsoleSocket::~ConsoleSocket() {
  if (!path_.empty()) unlink(path_.c_str());
}

Result<UniqueFd> ConsoleSocket::ReceiveMaster() {
  UniqueFd conn(accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!conn) return SystemError("accept on console socket", path_, errno);
  char data[256];
  iovec iov{data, sizeof data};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  // After `create` the message is there already; an exec's runtime sends it right after it
  // connects.
  pollfd ready{conn.get(), POLLIN, 0};
  while (poll(&ready, 1, 5000) < 0 && errno == EINTR) {
  }
  ssize_t n = recvmsg(conn.get(), &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  if (n < 0) return SystemError("receive the terminal from", path_, errno);
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (c == nullptr || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
    return Failure("receive the terminal from", path_, "the runtime sent no descriptor");
  }
  int master = -1;
  std::memcpy(&master, CMSG_DATA(c), sizeof master);
  UniqueFd out(master);
  fcntl(out.get(), F_SETFL, O_NONBLOCK);
  return out;
}

}  // namespace podlimits::cri
