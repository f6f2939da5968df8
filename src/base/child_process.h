// Running one program to completion as a child process: the way podlimits calls crun and runc;
// or starting one that runs on by itself (StartChild: serve's pod monitors).
//
// Only the three descriptors asked for reach the program (0, 1, 2; every other descriptor is
// closed in the child, whatever its close-on-exec flag), it starts with default signal
// dispositions and an empty signal mask (podlimits blocks the signals it reads through a
// signalfd, and a runtime must not inherit that), and in a process group of its own, so a time
// limit kills the program together with anything it forked. Exactly that child is reaped, by
// its pid: other children of the caller (containers re-parented to a subreaper) are left alone.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"

namespace podlimits {

struct ChildCommand {
  // argv[0] is the program's absolute path (no PATH lookup).
  std::vector<std::string> argv;
  // A descriptor of the caller to pass as the child's 0, 1 or 2, or one of these:
  static constexpr int kDevNull = -1;  // /dev/null
  static constexpr int kCapture = -2;  // a pipe read into ChildResult::out / err
  int stdin_fd = kDevNull;
  int stdout_fd = kCapture;
  int stderr_fd = kCapture;
  // Past this the process group is sent SIGKILL and the result says timed_out. Zero: no limit
  // (an interactive exec ends when its user ends it).
  std::chrono::milliseconds timeout{30000};
  // The program's environment ("NAME=value"); unset: the caller's.
  std::optional<std::vector<std::string>> env;
  // A session of its own (setsid) instead of a process group of its own: no signal of the
  // caller's terminal reaches it. For a process meant to outlive its caller (StartChild).
  bool new_session = false;
};

struct ChildResult {
  pid_t pid = 0;
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // the signal that ended it, 0 when it exited
  bool timed_out = false;
  std::string out;  // captured stdout / stderr (each at most 1 MiB, the rest is dropped)
  std::string err;

  bool Succeeded() const { return exit_code == 0 && !timed_out; }
  // "exit status 1", "killed by signal 9 (Killed)", "timed out after 30000 ms".
  std::string Describe(std::chrono::milliseconds timeout) const;
};

// Runs the command and waits for it. An error only when it could not be started or waited for
// (`posix_spawn "/usr/bin/crun": No such file or directory`); a program that fails is a result.
Result<ChildResult> RunChild(const ChildCommand& command);

// Starts the command and returns its pid at once: the caller waits for it (waitpid), or leaves
// it to run on. The same descriptors, signal state and group (or session) as RunChild; nothing
// is captured (kCapture is an error) and `timeout` does not apply.
Result<pid_t> StartChild(const ChildCommand& command);

}  // namespace podlimits
