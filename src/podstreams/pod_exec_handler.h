// GET /api/v1/namespaces/{ns}/pods/{name}/exec: `kubectl exec`, over the WebSocket
// remotecommand protocol kubectl 1.29+ speaks (v5.channel.k8s.io, and v4.channel.k8s.io for
// older clients). Query: command (repeated), container, stdin, stdout, stderr, tty.
//
// The checks and messages are the apiserver's (the pod, validateContainer, a host assigned) and
// the kubelet's (at least one stream; a container that is not running: `container not found
// ("app")`, answered before the upgrade so kubectl prints `unable to upgrade connection: ...`).
// The command runs through the pod's monitor (nodeagent/exec_server.h) with the container's own
// process settings, rlimits included (cri/exec_process.h). Then the streams are framed as
// upstream's: one binary message per chunk, its first byte the channel (0 stdin, 1 stdout,
// 2 stderr, 3 the final Status, 4 terminal resize, 255 v5's close of a stream), and the
// connection closes after the Status: Success; NonZeroExitCode with the exit code as an ExitCode
// cause (kubectl exits with it); or InternalError `error executing command in container: ...`.
// SPDY (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false) is refused with a message that says so.
#pragma once

#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"
#include "codec/node.h"
#include "http/https_server.h"
#include "storage/object_store.h"
#include "streaming/exec_streams.h"

namespace podlimits::apiserver {

// The streams type lives with the session that frames them (streaming/exec_streams.h).
using streaming::ExecStreams;


// Why the node did not start an exec or attach is an Error whose reason picks the kubelet's
// answer before an upgrade: kRefusedNotFound 404, kRefusedBadRequest 400, any other 500; its
// Message() is the plain-text body (`container not found ("app")`).
inline constexpr std::string_view kRefusedNotFound = "NotFound";
inline constexpr std::string_view kRefusedBadRequest = "BadRequest";
// An Error for `message` with the reason of `status` (404, 400, or 500 for anything else).
Error ExecRefusal(int status, std::string message);
// The HTTP status a refusal is answered with.
int ExecRefusalStatus(const Error& refusal);

struct ExecOptions {
  std::string container;
  std::vector<std::string> command;
  bool stdin = false, stdout = false, stderr = false, tty = false;
};

// A running container's input, handed to an attach session (`kubectl attach -i`).
struct AttachedInput {
  UniqueFd stdin_fd;  // the session writes the client's input here; closing it ends the input
  UniqueFd terminal;  // with a terminal: its master (stdin_fd is a duplicate), for resizes
};

class PodExecutor {
 public:
  virtual ~PodExecutor() = default;
  virtual Result<ExecStreams> StartExec(const codec::Node& pod, const ExecOptions& options) = 0;
  // Attaches to the input of `options.container` (declared `stdin: true`), with
  // `options.tty` as the container has it.
  virtual Result<AttachedInput> AttachInput(const codec::Node& pod, const ExecOptions& options) = 0;
};

http::HttpResponse ServePodExec(storage::ObjectStore& store, PodExecutor& executor, const http::HttpRequest& request,
                          const storage::ObjectKey& pod_key);

// The half exec and attach (pod_attach_handler.h) share: the pod, the container, a host, the
// streams asked for, the protocol; then `start` makes the streams and the session frames them.
// With `attach` there is no command.
// `precheck` refuses what it can tell from the pod alone, for SPDY requests too (kubectl shows
// what its SPDY fallback got).
using RemoteCommandStarter =
    std::function<Result<ExecStreams>(const codec::Node& pod, const ExecOptions& options)>;
using RemoteCommandCheck =
    std::function<std::optional<Error>(const codec::Node& pod, const ExecOptions& options)>;
http::HttpResponse ServeRemoteCommand(storage::ObjectStore& store, const http::HttpRequest& request,
                                const storage::ObjectKey& pod_key, bool attach,
                                const RemoteCommandCheck& precheck,
                                const RemoteCommandStarter& start);

// The container runs, as its published status says; else the kubelet's `container not found
// ("app")` (404).
std::optional<Error> RunningContainerCheck(const codec::Node& pod, const ExecOptions& options);

// Every value of `key` in the request target's query, in order (`command` repeats).
std::vector<std::string> QueryValues(std::string_view target, std::string_view key);

// The final Status of an exec, as the JSON the error channel carries, from the node's last
// message ({"exitCode": N} or {"error": "..."}); `command` for the non-zero exit's message.
std::string ExecStatusJson(std::string_view node_message, const std::vector<std::string>& command);

}  // namespace podlimits::apiserver
