// What a started `kubectl exec` or `kubectl attach` hands the session that frames it
// (exec_session.h): the process's ends and the node's connection that reports how it ended.
#pragma once

#include <optional>
#include <string>
#include <thread>

#include "base/unique_fd.h"

namespace podlimits::streaming {

// A started exec's ends, as the node hands them over.
struct ExecStreams {
  // A thread that feeds the streams (attach's log follower; none for exec). First, so that it
  // is joined after the descriptors below have closed, which is what tells it to stop.
  std::jthread producer;
  bool tty = false;
  UniqueFd control;     // the node's connection: its last message tells how the command ended
  UniqueFd stdin_fd;    // to the process (with a terminal: the master); invalid without stdin
  UniqueFd stdout_fd;   // from the process (with a terminal: the master); invalid without stdout
  UniqueFd stderr_fd;   // from the process; invalid without stderr and with a terminal
  UniqueFd terminal;    // the master, for resizes; invalid without a terminal
  // Set when the node reported the end already (the runtime could not start the command).
  std::optional<std::string> final_message;
};

}  // namespace podlimits::streaming
