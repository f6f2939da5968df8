#include "podstreams/pod_exec_handler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "listwatch/api_errors.h"
#include "podstreams/pod_container.h"
#include "podstreams/pod_log_follow.h"
#include "listwatch/request_info.h"
#include "listwatch/stored_object.h"
#include "podstreams/upgrade_request.h"
#include "base/percent_encoding.h"
#include "codec/json_codec.h"
#include "cri/exec_wire.h"
#include "streaming/exec_session.h"

namespace podlimits::apiserver {

using codec::Node;

namespace {

constexpr std::string_view kV5 = "v5.channel.k8s.io";
constexpr std::string_view kV4 = "v4.channel.k8s.io";

http::HttpResponse PlainText(int status, std::string text) {
  return {status, "text/plain; charset=utf-8", std::move(text)};
}

}  // namespace

std::vector<std::string> QueryValues(std::string_view target, std::string_view key) {
  std::vector<std::string> out;
  const std::size_t q = target.find('?');
  if (q == std::string_view::npos) return out;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const std::size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    const std::size_t eq = pair.find('=');
    if (PercentDecode(pair.substr(0, eq), true) == key) {
      out.push_back(eq == std::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1), true));
    }
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  return out;
}

std::string ExecStatusJson(std::string_view node_message, const std::vector<std::string>& command) {
  auto nodes = codec::ParseJsonStream(node_message);
  std::optional<std::int64_t> exit_code;
  std::string error = "the node sent no result";
  if (nodes && nodes->size() == 1) {
    exit_code = codec::IntOf((*nodes)[0].Find("exitCode"));
    if (const Node* e = (*nodes)[0].Find("error"); e != nullptr && e->IsString()) error = e->scalar;
  }
  Node status = Node::Object();
  if (exit_code && *exit_code == 0) {
    status.Set("metadata", Node::Object());
    status.Set("status", Node::String("Success"));
    return codec::EncodeJson(status, 0);
  }
  if (!exit_code) {
    return codec::EncodeJson(InternalError("error executing command in container: " + error).Status(), 0);
  }
  // The kubelet's NonZeroExitCode status, with containerd's wording of the exit
  // ("error executing command [sh -c exit 3], exit code 3").
  status.Set("metadata", Node::Object());
  status.Set("status", Node::String("Failure"));
  status.Set("message", Node::String(fmt::format(
                            "command terminated with non-zero exit code: error executing command "
                            "[{}], exit code {}",
                            fmt::join(command, " "), *exit_code)));
  status.Set("reason", Node::String("NonZeroExitCode"));
  Node cause = Node::Object();
  cause.Set("reason", Node::String("ExitCode"));
  cause.Set("message", Node::String(std::to_string(*exit_code)));
  Node causes = Node::Array();
  causes.items.push_back(std::move(cause));
  Node details = Node::Object();
  details.Set("causes", std::move(causes));
  status.Set("details", std::move(details));
  return codec::EncodeJson(status, 0);
}

Error ExecRefusal(int status, std::string message) {
  Error refusal{.detail = std::move(message)};
  if (status == 404) return std::move(refusal).Because(kRefusedNotFound);
  if (status == 400) return std::move(refusal).Because(kRefusedBadRequest);
  return refusal;
}

int ExecRefusalStatus(const Error& refusal) {
  if (refusal.Is(kRefusedNotFound)) return 404;
  if (refusal.Is(kRefusedBadRequest)) return 400;
  return 500;
}

std::optional<Error> RunningContainerCheck(const Node& pod, const ExecOptions& options) {
  const Node* status = ContainerStatusOf(pod, options.container);
  if (status == nullptr || status->FindPath({"state", "running"}) == nullptr) {
    return ExecRefusal(404, cri::ContainerNotFound(options.container));
  }
  return std::nullopt;
}

http::HttpResponse ServeRemoteCommand(storage::ObjectStore& store, const http::HttpRequest& request,
                                const storage::ObjectKey& pod_key, bool attach,
                                const RemoteCommandCheck& precheck,
                                const RemoteCommandStarter& start) {
  auto pod = LoadPod(store, pod_key);
  if (!pod) return pod.error().Response();
  auto query = [&](const char* key) {
    auto it = request.query.find(key);
    return it == request.query.end() ? std::string() : it->second;
  };
  auto container = ResolvePodContainer(*pod, query("container"), pod_key.name);
  if (!container) return container.error().Response();
  if (codec::StringOf(pod->FindPath({"spec", "nodeName"})).empty()) {
    return BadRequest(fmt::format("pod {} does not have a host assigned", pod_key.name)).Response();
  }
  const std::string phase = codec::StringOf(pod->FindPath({"status", "phase"}));

  ExecOptions options;
  options.container = *container;
  if (!attach) options.command = QueryValues(request.target, "command");
  options.stdin = QueryFlag(request, "stdin");
  options.stdout = QueryFlag(request, "stdout");
  options.stderr = QueryFlag(request, "stderr");
  options.tty = QueryFlag(request, "tty");
  // The kubelet's stream options: a terminal carries stderr with stdout.
  if (options.tty) options.stderr = false;
  if (!options.stdin && !options.stdout && !options.stderr) {
    return PlainText(400, "you must specify at least 1 of stdin, stdout, stderr");
  }
  if (!attach && options.command.empty()) {
    return PlainText(400, "you must specify at least one command for the container");
  }

  // Refusals before anything runs. kubectl 1.32 falls back to SPDY when the WebSocket upgrade
  // fails for any reason and prints what the SPDY request got, so a request that is not a
  // WebSocket one gets them as a Status it can show ("Error from server (BadRequest): ...").
  const bool websocket = HeaderHasToken(request, "upgrade", "websocket");
  auto refuse = [&](int status, std::string message) {
    if (websocket) return PlainText(status, std::move(message));
    ApiError e = BadRequest(std::move(message));
    if (status == 404) {
      e.code = 404;
      e.reason = "NotFound";
    }
    return e.Response();
  };
  if (phase == "Succeeded" || phase == "Failed") {
    return refuse(404, cri::ContainerNotFound(options.container));
  }
  if (precheck) {
    if (auto refusal = precheck(*pod, options)) {
      return refuse(ExecRefusalStatus(*refusal), refusal->Message());
    }
  }
  if (!websocket) {
    if (HeaderHasToken(request, "upgrade", "spdy")) {
      return refuse(400, fmt::format("podlimits serves {} over WebSocket only (v5.channel.k8s.io, "
                                     "v4.channel.k8s.io), not SPDY/3.1: run kubectl without "
                                     "KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false",
                                     attach ? "attach" : "exec"));
    }
    return PlainText(400, "Upgrade request required");
  }
  std::string protocol;
  for (const std::string& offered : OfferedProtocols(request)) {
    if (offered == kV5 || (offered == kV4 && protocol.empty())) protocol = offered;
  }
  if (protocol.empty()) {
    return PlainText(400, fmt::format("requested protocol(s) are not supported: [{}]; supports [{} {}]",
                                      fmt::join(OfferedProtocols(request), " "), kV5, kV4));
  }
  auto started = start(*pod, options);
  if (!started) return PlainText(ExecRefusalStatus(started.error()), started.error().Message());
  auto streams = std::make_shared<ExecStreams>(std::move(*started));
  http::HttpResponse response;
  response.websocket_protocol = protocol;
  response.websocket = [streams, command = options.command, v5 = protocol == kV5](
                           http::WebSocketConnection& connection) mutable {
    streaming::RunExecSession(
        connection, std::move(*streams),
        [command](std::string_view node_message) { return ExecStatusJson(node_message, command); },
        v5);
  };
  return response;
}

http::HttpResponse ServePodExec(storage::ObjectStore& store, PodExecutor& executor, const http::HttpRequest& request,
                          const storage::ObjectKey& pod_key) {
  return ServeRemoteCommand(store, request, pod_key, false, RunningContainerCheck,
                            [&](const Node& pod, const ExecOptions& options) {
                              return executor.StartExec(pod, options);
                            });
}

}  // namespace podlimits::apiserver
