// The OCI runtime client: crun or runc as command-line programs, the way containerd's shim and
// conmon drive them (create / start / state / kill / delete), each call a synchronous child
// process. Every failure says which runtime command failed for which container and carries the
// runtime's own message (from its stderr or its --log file), e.g.
//   crun create web-1a2b: mount `proc` to `proc`: Operation not permitted
#pragma once

#include <sys/types.h>

#include <chrono>
#include <expected>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/child_process.h"
#include "base/error.h"
#include "cri/container_runtime.h"

namespace podlimits::cri {

enum class RuntimeKind { kCrun, kRunc };


class OciRuntimeClient : public ContainerRuntime {
 public:
  // `binary`: absolute path of crun or runc. `state_root`: their --root (created if missing,
  // mode 0700).
  OciRuntimeClient(RuntimeKind kind, std::filesystem::path binary,
                   std::filesystem::path state_root);

  // `create --bundle BUNDLE --pid-file BUNDLE/init.pid ID`: the container's init process exists
  // and waits for Start; returns its pid (as seen from this pid namespace). The runtime's own
  // messages go to BUNDLE/runtime.log (--log), read back for the error on failure. A create that
  // fails leaves no runtime state behind (it runs `delete --force` itself).
  //
  // `refused`, when given, tells a failure the runtime itself reported (it ran and exited
  // non-zero: the container's spec or process is at fault, e.g. an executable that does not
  // exist) from one of running the runtime at all (not found, timed out, no pid file).
  Result<pid_t> Create(const std::string& id, const std::filesystem::path& bundle,
                       const ContainerStdio& stdio, bool* refused = nullptr) override;
  Result<void> Start(const std::string& id, bool* refused = nullptr) override;
  Result<ContainerState> State(const std::string& id) override;
  // `kill [--all] ID SIGNAL`. Killing a container that has already stopped is not an error.
  Result<void> Kill(const std::string& id, int signal, bool all = false) override;
  // `delete --force ID`; a container the runtime does not know is not an error.
  Result<void> Delete(const std::string& id) override;
  // `exec --process FILE ID` with the container's own process (exec_process.h), output
  // captured: probes and lifecycle hooks.
  Result<ExecResult> Exec(const std::string& id, const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout) override;
  // An exec whose stdio is the caller's (`kubectl exec`), run to its end without a time limit:
  // `exec --process FILE [--tty --console-socket SOCKET] --pid-file PID_FILE ID`. The result is
  // the command's exit code (128+N when a signal ended it, as the runtime reports it), or the
  // runtime's own error when it could not run the command at all (no such executable, the
  // container stopped). `pid_file` names the exec'd process for whoever must stop it early.
  Result<AttachedExecEnd> ExecAttached(const std::string& id, const AttachedExec& exec) override;

  std::string_view Name() const override { return kind_ == RuntimeKind::kRunc ? "runc" : "crun"; }
  const std::filesystem::path& Binary() const override { return binary_; }
  const std::filesystem::path& StateRoot() const override { return state_root_; }
  RuntimeKind kind() const { return kind_; }

  // Each runtime command's time limit; past it the command is killed and reported.
  std::chrono::milliseconds timeout{30000};

 private:
  std::filesystem::path binary_;
  std::filesystem::path state_root_;
  RuntimeKind kind_;
  // What an exec needs of a container's config.json (bundle, linux.cgroupsPath, process), read
  // once per container: probes exec every period.
  struct ExecTarget {
    std::filesystem::path bundle;
    std::string cgroup_path;
    std::string process_json;
  };
  Result<ExecTarget> ExecTargetOf(const std::string& id);
  // Runs `runtime exec` (argv after the global flags) for `id` with the process file written
  // from `target`; spawns inside the cgroup view crun's exec needs on v1.
  Result<ChildResult> RunExec(const std::string& id, const ExecTarget& target,
                              const std::vector<std::string>& argv, bool tty,
                              std::vector<std::string> exec_flags, ChildCommand command,
                              const std::filesystem::path* log);
  std::unique_ptr<std::mutex> exec_targets_mu_ = std::make_unique<std::mutex>();  // movable
  std::map<std::string, ExecTarget> exec_targets_;
};

}  // namespace podlimits::cri
