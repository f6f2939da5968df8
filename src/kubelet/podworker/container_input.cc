#include "kubelet/podworker/container_input.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>

namespace podlimits::kubelet {

ContainerInput::ContainerInput(UniqueFd fd, bool tty, bool stdin_once)
    : fd_(std::move(fd)), tty_(tty), stdin_once_(stdin_once) {
  // A pipe the container does not read must not block a session's copy for ever: the copy
  // waits for room with poll, and stops when it is told to.
  if (!tty_ && fd_) fcntl(fd_.get(), F_SETFL, fcntl(fd_.get(), F_GETFL) | O_NONBLOCK);
}

UniqueFd ContainerInput::Duplicate() const {
  std::lock_guard lock(mu_);
  if (!fd_) return UniqueFd();
  return UniqueFd(fcntl(fd_.get(), F_DUPFD_CLOEXEC, 3));
}

void ContainerInput::Close() {
  std::lock_guard lock(mu_);
  fd_.Reset();
}

void ContainerInput::CopyFrom(int from, int stop) {
  UniqueFd to = Duplicate();
  if (!to) return;
  std::array<char, 32768> buffer;
  bool ended = false;  // the client's input ended (not a stop, not the container going)
  while (true) {
    pollfd in[2] = {{from, POLLIN, 0}, {stop, POLLIN, 0}};
    if (poll(in, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (in[1].revents != 0) break;
    const ssize_t n = read(from, buffer.data(), buffer.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      ended = true;
      break;
    }
    std::size_t written = 0;
    bool gone = false;
    while (written < static_cast<std::size_t>(n)) {
      const ssize_t w = write(to.get(), buffer.data() + written, static_cast<std::size_t>(n) - written);
      if (w > 0) {
        written += static_cast<std::size_t>(w);
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EAGAIN) {  // the container has not read yet: wait for room
        pollfd out[2] = {{to.get(), POLLOUT, 0}, {stop, POLLIN, 0}};
        if (poll(out, 2, -1) < 0 && errno != EINTR) gone = true;
        if (out[1].revents != 0) return;
        if (out[0].revents & (POLLERR | POLLHUP)) gone = true;
        if (!gone) continue;
      }
      gone = true;  // EPIPE: the container closed its stdin or ended
      break;
    }
    if (gone) return;
  }
  if (ended && stdin_once_) {
    to.Reset();
    Close();
  }
}

}  // namespace podlimits::kubelet
