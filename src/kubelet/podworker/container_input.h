// A running container's input, for `kubectl attach -i` and `kubectl run -i`: the write end of
// the pipe that is its stdin (`stdin: true`), or its terminal's master (`stdin` with `tty`).
// The pod's worker owns the container and closes this when it goes; the monitor's exec server
// attaches clients to it meanwhile, from other threads.
//
// Without a terminal each attach session copies its client's bytes in (CopyFrom), as
// containerd's attach copies its stream into the container's stdin. With `stdinOnce` the end of
// the first session's input closes the container's stdin, so its process reads end of file;
// with a terminal the session writes the master itself and nothing is closed (containerd keeps
// a terminal's input open: kubectl's detach must not end the shell).
#pragma once

#include <mutex>

#include "base/unique_fd.h"

namespace podlimits::kubelet {

class ContainerInput {
 public:
  // `fd`: the pipe's write end (made non-blocking here) or a duplicate of the master.
  ContainerInput(UniqueFd fd, bool tty, bool stdin_once);
  ContainerInput(const ContainerInput&) = delete;
  ContainerInput& operator=(const ContainerInput&) = delete;

  bool tty() const { return tty_; }
  // A duplicate of the descriptor; invalid once closed.
  UniqueFd Duplicate() const;
  // Copies what `from` yields into the container's stdin until `from` ends (then, with
  // stdinOnce, closes it), the container stops reading, or `stop` turns readable.
  void CopyFrom(int from, int stop);
  // The container is gone, or its input ended for good.
  void Close();

 private:
  mutable std::mutex mu_;
  UniqueFd fd_;
  const bool tty_;
  const bool stdin_once_;
};

}  // namespace podlimits::kubelet
