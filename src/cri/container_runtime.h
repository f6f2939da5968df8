// What the kubelet's pod workers ask of a container runtime, per container: create (the init
// process exists and waits), start, state, kill, delete. The OCI runtime client (crun, runc;
// oci_runtime.h) is the implementation on a node; unit tests drive the pod workers through a
// fake, unprivileged, on any machine.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace podlimits::cri {

struct ContainerState {
  std::string id;
  std::string status;  // "created", "running", "stopped"
  pid_t pid = 0;       // 0 once stopped
  std::filesystem::path bundle;
};

// Stdio handed to the container's process by `create` (the runtime passes its own stdio down
// when there is no terminal). -1: /dev/null.
struct ContainerStdio {
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  // For a spec with process.terminal: the unix socket the runtime sends the terminal's master
  // to (`--console-socket`); the fds above are then unused.
  std::filesystem::path console_socket = {};
};

// How a command run in a container ended (the CRI's ExecSync).
struct ExecResult {
  int exit_code = -1;  // -1 when it timed out or was killed
  bool timed_out = false;
  std::string output;  // stdout then stderr, as far as it was captured
  std::string error_output;  // stderr alone (what the CRI's ExecSync error quotes)
};

struct AttachedExec {
  std::vector<std::string> argv;
  bool tty = false;
  // Without a terminal: the process's 0, 1 and 2 (-1: /dev/null). With one: console_socket,
  // where the runtime sends the terminal's master.
  ContainerStdio stdio;
  std::filesystem::path pid_file;  // required
};

struct AttachedExecEnd {
  int exit_code = -1;
  std::string runtime_error;  // set when the runtime itself failed; exit_code is then its own
};

class ContainerRuntime {
 public:
  virtual ~ContainerRuntime() = default;

  // The container's init process exists (from BUNDLE/config.json) and waits for Start; returns
  // its pid as seen from this pid namespace. A create that fails leaves no runtime state.
  // `refused`, when given, tells a failure the runtime itself reported (the container's spec or
  // process is at fault, e.g. an executable that does not exist: the kubelet's StartError) from
  // one of running the runtime at all.
  virtual Result<pid_t> Create(const std::string& id, const std::filesystem::path& bundle,
                               const ContainerStdio& stdio, bool* refused = nullptr) = 0;
  virtual Result<void> Start(const std::string& id, bool* refused = nullptr) = 0;
  virtual Result<ContainerState> State(const std::string& id) = 0;
  // Killing a container that has already stopped is not an error.
  virtual Result<void> Kill(const std::string& id, int signal, bool all = false) = 0;
  // A container the runtime does not know is not an error.
  virtual Result<void> Delete(const std::string& id) = 0;
  // Runs `argv` in the running container (its namespaces, cgroup, user and limits, as the
  // runtime's `exec` gives them) and waits up to `timeout`. An error only when the runtime could
  // not be run; a command that fails is a result.
  virtual Result<ExecResult> Exec(const std::string& id, const std::vector<std::string>& argv,
                                  std::chrono::milliseconds timeout) = 0;

  // Runs `exec.argv` in the running container with the caller's stdio (`kubectl exec`) to its
  // end, without a time limit (OciRuntimeClient::ExecAttached).
  virtual Result<AttachedExecEnd> ExecAttached(const std::string& id, const AttachedExec& exec) = 0;

  // "crun", "runc", ...: recorded with the pod so that a later run can clean up after it.
  virtual std::string_view Name() const = 0;
  virtual const std::filesystem::path& Binary() const = 0;
  virtual const std::filesystem::path& StateRoot() const = 0;
};

}  // namespace podlimits::cri
