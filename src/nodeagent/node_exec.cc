// NodeAgent::StartExec, AttachInput and DialPort: the agent's half of the exec socket (exec_wire.h).
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "codec/json_codec.h"
#include "cri/exec_wire.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/node_agent.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using cri::ConnectExecSocket;
using cri::ReceiveExecMessage;
using cri::SendExecMessage;
using codec::Node;

namespace {

// How long the monitor may take to start the command (the kubelet's stream creation timeout).
constexpr int kStartTimeoutMs = 30000;

Error Refused(int status, std::string message) {
  return apiserver::ExecRefusal(status, std::move(message));
}

// The monitor's answer to a request: one JSON object, with the descriptors it passed.
struct MonitorReply {
  std::string json;
  Node object;
  std::vector<UniqueFd> fds;
};
enum class NoReply {
  kTimedOut,   // nothing within kStartTimeoutMs
  kClosed,     // the monitor closed the connection: the pod or container is not there
  kMalformed,  // not one JSON object
};

std::expected<MonitorReply, NoReply> AwaitReply(int fd) {
  pollfd ready{fd, POLLIN, 0};
  int polled;
  do {
    polled = poll(&ready, 1, kStartTimeoutMs);
  } while (polled < 0 && errno == EINTR);
  if (polled <= 0) return std::unexpected(NoReply::kTimedOut);
  auto message = ReceiveExecMessage(fd);
  if (!message || message->json.empty()) return std::unexpected(NoReply::kClosed);
  auto nodes = codec::ParseJsonStream(message->json);
  if (!nodes || nodes->size() != 1 || !(*nodes)[0].IsObject()) {
    return std::unexpected(NoReply::kMalformed);
  }
  return MonitorReply{std::move(message->json), std::move((*nodes)[0]), std::move(message->fds)};
}

constexpr std::string_view kMalformedReply = "the pod's monitor sent a malformed reply";

// The refusal for an exec or attach the monitor did not answer; `doing`: what it was asked to
// do ("start the command").
Error RefusalFor(NoReply why, std::string_view doing, const std::string& not_found) {
  switch (why) {
    case NoReply::kTimedOut:
      return Refused(500, fmt::format("timed out waiting for the pod's monitor to {}", doing));
    case NoReply::kClosed:
      return Refused(404, not_found);
    case NoReply::kMalformed:
      break;
  }
  return Refused(500, std::string(kMalformedReply));
}

// A connection to the exec socket of the monitor of `pod`. No monitor listening: the pod is
// not running here (yet, or any more), which the kubelet says as `container not found`.
Result<UniqueFd> ConnectMonitor(const fs::path& data_dir,
                                                               const Node& pod,
                                                               const std::string& not_found) {
  const std::string uid = codec::StringOf(pod.FindPath({"metadata", "uid"}));
  if (uid.empty()) return std::unexpected(Refused(404, not_found));
  auto conn = ConnectExecSocket(MonitorDirectory(data_dir, uid));
  if (!conn) return std::unexpected(Refused(404, not_found));
  return std::move(*conn);
}

}  // namespace

Result<apiserver::ExecStreams> NodeAgent::StartExec(
    const Node& pod, const apiserver::ExecOptions& options) {
  const std::string not_found = cri::ContainerNotFound(options.container);
  auto conn = ConnectMonitor(options_.data_dir, pod, not_found);
  if (!conn) return std::unexpected(conn.error());

  apiserver::ExecStreams streams;
  streams.tty = options.tty;
  Node request = Node::Object();
  request.Set("container", Node::String(options.container));
  Node command = Node::Array();
  for (const std::string& arg : options.command) command.items.push_back(Node::String(arg));
  request.Set("command", std::move(command));
  request.Set("tty", Node::Bool(options.tty));

  // Without a terminal the process gets pipes (or /dev/null for a stream nobody asked for); the
  // agent keeps the other ends.
  std::vector<UniqueFd> child_ends;
  if (!options.tty) {
    auto dev_null = [&]() -> Result<UniqueFd> {
      UniqueFd fd(open("/dev/null", O_RDWR | O_CLOEXEC));
      if (!fd) return SystemError("open", "/dev/null", errno);
      return fd;
    };
    for (int stream = 0; stream < 3; ++stream) {
      const bool wanted = stream == 0 ? options.stdin : stream == 1 ? options.stdout : options.stderr;
      if (!wanted) {
        auto fd = dev_null();
        if (!fd) return std::unexpected(Refused(500, fd.error().Message()));
        child_ends.push_back(std::move(*fd));
        continue;
      }
      int p[2];
      if (pipe2(p, O_CLOEXEC) != 0) {
        return std::unexpected(Refused(500, fmt::format("pipe: {}", std::strerror(errno))));
      }
      UniqueFd read_end(p[0]), write_end(p[1]);
      if (stream == 0) {
        streams.stdin_fd = std::move(write_end);
        child_ends.push_back(std::move(read_end));
      } else {
        (stream == 1 ? streams.stdout_fd : streams.stderr_fd) = std::move(read_end);
        child_ends.push_back(std::move(write_end));
      }
    }
  }
  std::vector<int> fds;
  for (const UniqueFd& fd : child_ends) fds.push_back(fd.get());
  if (auto sent = SendExecMessage(conn->get(), codec::EncodeJson(request, 0), fds); !sent) {
    return std::unexpected(Refused(500, sent.error().Message()));
  }
  child_ends.clear();  // the process's copies are the only ones now: EOF comes when it closes them

  auto reply = AwaitReply(conn->get());
  if (!reply) return std::unexpected(RefusalFor(reply.error(), "start the command", not_found));
  const Node& first = reply->object;
  if (const Node* e = first.Find("error"); e != nullptr) {
    if (const Node* nf = first.Find("notFound"); nf != nullptr && nf->AsBool()) {
      return std::unexpected(Refused(404, codec::StringOf(e)));
    }
    streams.final_message = reply->json;  // reported after the upgrade, as the kubelet does
  } else if (first.Find("exitCode") != nullptr) {
    streams.final_message = reply->json;
  } else if (options.tty) {
    if (reply->fds.size() != 1) return std::unexpected(Refused(500, "the pod's monitor sent no terminal"));
    UniqueFd master = std::move(reply->fds[0]);
    auto dup_of = [&](bool wanted) {
      return wanted ? UniqueFd(fcntl(master.get(), F_DUPFD_CLOEXEC, 3)) : UniqueFd();
    };
    streams.stdin_fd = dup_of(options.stdin);
    streams.stdout_fd = dup_of(true);  // read even without stdout, to see the terminal close
    streams.terminal = std::move(master);
  }
  streams.control = std::move(*conn);
  return streams;
}

Result<apiserver::AttachedInput> NodeAgent::AttachInput(
    const Node& pod, const apiserver::ExecOptions& options) {
  const std::string not_found = cri::ContainerNotFound(options.container);
  auto conn = ConnectMonitor(options_.data_dir, pod, not_found);
  if (!conn) return std::unexpected(conn.error());
  Node request = Node::Object();
  request.Set("attach", Node::String(options.container));
  request.Set("tty", Node::Bool(options.tty));
  apiserver::AttachedInput input;
  UniqueFd read_end;
  if (!options.tty) {
    // The client's input goes through a pipe the monitor copies into the container's stdin.
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
      return std::unexpected(Refused(500, fmt::format("pipe: {}", std::strerror(errno))));
    }
    read_end.Reset(p[0]);
    input.stdin_fd.Reset(p[1]);
  }
  const int fd = read_end.get();
  const auto fds = read_end ? std::span<const int>(&fd, 1) : std::span<const int>();
  if (auto sent = SendExecMessage(conn->get(), codec::EncodeJson(request, 0), fds); !sent) {
    return std::unexpected(Refused(500, sent.error().Message()));
  }
  read_end.Reset();  // the monitor's copy is the only reader now
  auto reply = AwaitReply(conn->get());
  if (!reply) return std::unexpected(RefusalFor(reply.error(), "attach", not_found));
  if (const Node* e = reply->object.Find("error"); e != nullptr) {
    const Node* nf = reply->object.Find("notFound");
    return std::unexpected(Refused(nf != nullptr && nf->AsBool() ? 404 : 400, codec::StringOf(e)));
  }
  if (options.tty) {
    if (reply->fds.size() != 1) return std::unexpected(Refused(500, "the pod's monitor sent no terminal"));
    input.terminal = std::move(reply->fds[0]);
    input.stdin_fd = UniqueFd(fcntl(input.terminal.get(), F_DUPFD_CLOEXEC, 3));
  }
  return input;
}

Result<UniqueFd> NodeAgent::DialPort(const Node& pod, int port) {
  const std::string uid = codec::StringOf(pod.FindPath({"metadata", "uid"}));
  const std::string name = codec::StringOf(pod.FindPath({"metadata", "name"}));
  // The kubelet's words for a pod whose sandbox is not there (kuberuntime GetPortForward).
  auto no_sandbox = [&] {
    return Failure(
        fmt::format("error forwarding port {} to pod {}, uid : failed to find "
                    "sandboxID for pod {}",
                    port, uid, name));
  };
  if (uid.empty()) return no_sandbox();
  auto conn = ConnectExecSocket(MonitorDirectory(options_.data_dir, uid));
  if (!conn) return no_sandbox();  // no monitor listening: the pod does not run here
  if (auto sent = SendExecMessage(conn->get(), fmt::format(R"({{"portForward":{}}})", port)); !sent) {
    return std::unexpected(std::move(sent.error()));
  }
  auto reply = AwaitReply(conn->get());
  if (!reply) {
    switch (reply.error()) {
      case NoReply::kTimedOut:
        return Failure(
            fmt::format("error forwarding port {} to pod {}, uid : timed out "
                        "waiting for the pod's monitor",
                        port, uid));
      case NoReply::kClosed:
        return no_sandbox();
      case NoReply::kMalformed:
        return Failure(std::string(kMalformedReply));
    }
  }
  if (const Node* e = reply->object.Find("error"); e != nullptr) return Failure(codec::StringOf(e));
  if (reply->fds.size() != 1) return Failure("the pod's monitor sent no socket");
  return std::move(reply->fds[0]);
}

}  // namespace podlimits::nodeagent
