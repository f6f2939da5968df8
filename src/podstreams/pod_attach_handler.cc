#include "podstreams/pod_attach_handler.h"

#include <poll.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <thread>

#include "podstreams/pod_container.h"
#include "podstreams/pod_exec_handler.h"
#include "podstreams/pod_log_follow.h"
#include "cri/exec_wire.h"

namespace podlimits::apiserver {

namespace fs = std::filesystem;
using codec::Node;

namespace {

// A connected pair of stream sockets: writes to them never raise SIGPIPE (MSG_NOSIGNAL), which
// a pipe would once the session stops reading.
bool StreamPair(UniqueFd& mine, UniqueFd& theirs, int type = SOCK_STREAM) {
  int fds[2];
  if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, fds) != 0) return false;
  mine = UniqueFd(fds[0]);
  theirs = UniqueFd(fds[1]);
  return true;
}

bool SendAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = send(fd, text.data(), text.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// The session closed its end of the control connection: the client went.
bool PeerGone(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

std::optional<Error> AttachCheck(const Node& pod, const ExecOptions& options) {
  if (options.stdin) {
    const Node* spec = PodContainerSpec(pod, options.container);
    const Node* stdin = spec != nullptr ? spec->Find("stdin") : nullptr;
    if (stdin == nullptr || !stdin->AsBool()) {
      return ExecRefusal(400, fmt::format("podlimits does not attach to a container's input "
                                          "unless it declares stdin: true: the stdin of container "
                                          "{} is /dev/null; attach without -i",
                                          options.container));
    }
  }
  return RunningContainerCheck(pod, options);
}

Result<ExecStreams> StartAttach(storage::ObjectStore& store, const PodLogSource& logs,
                                                    PodExecutor& executor, const storage::ObjectKey& key,
                                                    const Node& pod, const ExecOptions& options) {
  auto file = logs.ContainerLogFile(pod, options.container, false);
  if (!file) return std::unexpected(ExecRefusal(404, file.error().Message()));
  std::error_code ec;
  std::uintmax_t offset = fs::file_size(*file, ec);
  if (ec) offset = 0;

  ExecStreams streams;
  streams.tty = options.tty;
  if (options.stdin) {
    auto input = executor.AttachInput(pod, options);
    if (!input) return std::unexpected(input.error());
    streams.stdin_fd = std::move(input->stdin_fd);
    streams.terminal = std::move(input->terminal);
  }
  UniqueFd control, out, err;
  if (!StreamPair(control, streams.control, SOCK_SEQPACKET) ||
      (options.stdout && !StreamPair(out, streams.stdout_fd)) ||
      (options.stderr && !StreamPair(err, streams.stderr_fd))) {
    return std::unexpected(Error{"socketpair", {}, errno});
  }
  const FollowedRun run = RunOf(pod, key, options.container);
  // The follower lives as long as the session, which joins it: it stops when the run is over
  // (and says so on the control connection) or when the session closed its end.
  streams.producer = std::jthread([&store, run, path = *file, offset, tty = options.tty,
                                   control = std::move(control), out = std::move(out),
                                   err = std::move(err)]() mutable {
    FollowContainerLog(
        path, offset,
        [&](const std::vector<cri::LogEntry>& entries) {
          for (const auto& e : entries) {
            UniqueFd& to = (e.stream == "stderr" && !tty) ? err : out;
            if (!to) continue;  // a stream the client did not ask for
            if (!SendAll(to.get(), cri::RenderLogEntry(e, false))) return false;
          }
          return true;
        },
        [&] { return RunOver(store, run); }, [&] { return PeerGone(control.get()); });
    out.Reset();
    err.Reset();
    (void)cri::SendExecMessage(control.get(), R"({"exitCode": 0})");
  });
  return streams;
}

}  // namespace

http::HttpResponse ServePodAttach(storage::ObjectStore& store, const PodLogSource& logs, PodExecutor& executor,
                            const http::HttpRequest& request, const storage::ObjectKey& pod_key) {
  return ServeRemoteCommand(store, request, pod_key, true, AttachCheck,
                            [&](const Node& pod, const ExecOptions& options) {
                              return StartAttach(store, logs, executor, pod_key, pod, options);
                            });
}

}  // namespace podlimits::apiserver
