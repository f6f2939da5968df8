// The monitor's side of the exec socket (cri/exec_wire.h): runs `kubectl exec` commands in the
// pod's running containers through the OCI runtime, as containerd's shim runs a task's execs.
//
// It attaches `kubectl attach -i` to a running container's input (kubelet/podworker/container_input.h),
// and connects `kubectl port-forward`'s connections to the pod's ports (PortDialer), and
// hands the connected socket to the agent.
//
// One thread per exec: it looks the container up among the running ones, runs the runtime's
// exec with the agent's descriptors as the process's stdio (or hands the terminal's master
// back), reports the end, and kills the exec'd process when the agent goes away first. The
// process is in the container's namespaces and cgroup, so it counts against the pod's pids.max,
// and it has the container's rlimits (cri/exec_process.h).
#pragma once

#include <atomic>
#include <condition_variable>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"
#include "cri/oci_runtime.h"
#include "kubelet/podworker/container_input.h"

namespace podlimits::nodeagent {

class ExecServer {
 public:
  // Runs one exec to its end: OciRuntimeClient::ExecAttached on a node.
  using Runner =
      std::function<Result<cri::AttachedExecEnd>(const std::string& id, const cri::AttachedExec&)>;

  // Connects to `port` on the pod's loopback, in its network namespace: the socket, or why not.
  using PortDialer = std::function<Result<UniqueFd>(int port)>;

  // Listens on `dir`/exec.sock (replacing a dead monitor's socket file).
  static Result<std::unique_ptr<ExecServer>> Start(const std::filesystem::path& dir, Runner runner,
                                                   PortDialer dialer = {});
  // Stops listening, kills the execs still running and waits for their threads.
  ~ExecServer();
  ExecServer(const ExecServer&) = delete;
  ExecServer& operator=(const ExecServer&) = delete;

  struct RunningContainer {
    std::string id;                                  // the runtime's
    std::shared_ptr<kubelet::ContainerInput> input;  // with `stdin: true`
  };
  // The containers an exec or attach can reach now, by name.
  void SetRunning(std::map<std::string, RunningContainer> running);

 private:
  ExecServer(std::filesystem::path dir, UniqueFd dir_fd, UniqueFd listener, Runner runner,
             PortDialer dialer);
  void Accept();
  void Serve(UniqueFd conn, std::uint64_t serial);
  void ServePortForward(int conn, int port);
  void ServeAttach(int conn, const std::string& container, bool tty, std::vector<UniqueFd> fds);

  std::filesystem::path dir_;
  UniqueFd dir_fd_;
  UniqueFd listener_;
  Runner runner_;
  PortDialer dialer_;
  std::thread accept_thread_;
  std::atomic<bool> stopping_{false};

  std::mutex mu_;
  std::condition_variable idle_;
  std::map<std::string, RunningContainer> running_;
  UniqueFd stop_;  // an eventfd, readable once the server stops: ends attach sessions' copies
  std::map<int, bool> connections_;  // open exec connections, shut down by the destructor
  int active_ = 0;
};

}  // namespace podlimits::nodeagent
