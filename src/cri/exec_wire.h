// The exec socket between the node agent and a pod's monitor: how `kubectl exec` reaches a
// container, as the kubelet reaches containerd's shim over its task API.
//
// The monitor listens on <monitor dir>/exec.sock (SOCK_SEQPACKET, the directory root-only); the
// agent connects once per exec. Each message is one JSON object, some with descriptors
// (SCM_RIGHTS):
//
//   agent   -> monitor  {"container": "app", "command": ["sh", "-c", "..."], "tty": false}
//                       with 3 descriptors without a terminal: the process's stdin, stdout
//                       and stderr (the agent keeps the other ends)
//   monitor -> agent    {"started": true}, with the terminal's master when tty
//                       or {"error": "...", "notFound": true|false} and the connection closes
//   monitor -> agent    {"exitCode": N} or {"error": "..."} once the command has ended
//
// `kubectl attach -i` to a container with `stdin: true`:
//
//   agent   -> monitor  {"attach": "app", "tty": false} with the read end of a pipe that
//                       carries the client's input (none with a terminal)
//   monitor -> agent    {"started": true} (with a terminal: its master, which the agent
//                       writes and resizes) or {"error": "...", "notFound": ...}
//
// Without a terminal the monitor then copies the pipe into the container's stdin until the
// agent closes its end (stdinOnce: the container's stdin closes with it).
//
// `kubectl port-forward`'s connections take one exchange each:
//
//   agent   -> monitor  {"portForward": 8080}
//   monitor -> agent    {"started": true} with the socket connected to the pod's port 8080
//                       or {"error": "..."}; then the connection closes
//
// The agent closing the connection before the end asks for the command to be killed (the
// client went away), as containerd kills an exec whose stream context is cancelled.
#pragma once

#include <sys/un.h>

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"

namespace podlimits::cri {

inline constexpr std::string_view kExecSocketFile = "exec.sock";

// A unix socket address for `name` in `dir` that fits sun_path whatever the length of `dir`:
// "/proc/self/fd/<dir_fd>/<name>", with `dir_fd` an open descriptor of `dir`.
std::string ShortSocketPath(int dir_fd, std::string_view name);

// The address of the unix socket at `path` (which must fit sun_path: ShortSocketPath does).
struct sockaddr_un UnixAddress(std::string_view path);

// The kubelet's answer for an exec into a container that is not running (findContainer):
// `container not found ("app")`.
std::string ContainerNotFound(std::string_view container);

struct ExecMessage {
  std::string json;
  std::vector<UniqueFd> fds;
};

// Sends one message. Errors say what was sent where.
Result<void> SendExecMessage(int socket, std::string_view json, std::span<const int> fds = {});

// Receives one message (waits for it); an empty json means the peer closed the connection.
Result<ExecMessage> ReceiveExecMessage(int socket);

// Connects to the exec socket of the monitor in `monitor_dir`.
Result<UniqueFd> ConnectExecSocket(const std::filesystem::path& monitor_dir);

}  // namespace podlimits::cri
