#include "nodeagent/exec_server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "base/fs.h"
#include "codec/json_codec.h"
#include "cri/console_socket.h"
#include "cri/exec_wire.h"
#include "field/field.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using cri::kExecSocketFile;
using cri::ReceiveExecMessage;
using cri::SendExecMessage;
using cri::ShortSocketPath;
using codec::Node;

namespace {

std::string ErrorMessage(std::string_view message, bool not_found) {
  Node n = Node::Object();
  n.Set("error", Node::String(std::string(message)));
  n.Set("notFound", Node::Bool(not_found));
  return codec::EncodeJson(n, 0);
}

// The exec'd process, from the runtime's pid file: SIGKILL. The runtime's exec then returns.
// The file appears once the process exists; a kill asked for before that waits for it a little.
void KillExecProcess(const fs::path& pid_file) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (auto text = ReadSmallFile(pid_file, 64)) {
      const pid_t pid = static_cast<pid_t>(std::atoi(text->c_str()));
      if (pid > 0) kill(pid, SIGKILL);
      return;
    }
    usleep(10000);
  }
}

struct ExecRequest {
  std::string container;
  std::vector<std::string> command;
  bool tty = false;
};

// The port of a port-forward request ({"portForward": 8080}); nullopt for anything else.
std::optional<std::int64_t> PortForwardPort(const Node& n) {
  const Node* port = n.Find("portForward");
  if (port == nullptr) return std::nullopt;
  return codec::IntOf(port).value_or(0);
}

struct AttachRequest {
  std::string container;
  bool tty = false;
};

// An attach's request ({"attach": "app", "tty": false}); nullopt for anything else.
std::optional<AttachRequest> ParseAttach(const Node& n) {
  const Node* container = n.Find("attach");
  if (container == nullptr || !container->IsString()) return std::nullopt;
  const Node* tty = n.Find("tty");
  return AttachRequest{container->scalar, tty != nullptr && tty->AsBool()};
}

std::optional<ExecRequest> ParseRequest(const Node& n) {
  ExecRequest r;
  r.container = codec::StringOf(n.Find("container"));
  const Node* tty = n.Find("tty");
  r.tty = tty != nullptr && tty->AsBool();
  const Node* command = n.Find("command");
  if (command == nullptr || !command->IsArray()) return std::nullopt;
  for (const Node& arg : command->items) {
    if (!arg.IsString()) return std::nullopt;
    r.command.push_back(arg.scalar);
  }
  if (r.container.empty() || r.command.empty()) return std::nullopt;
  return r;
}

}  // namespace

Result<std::unique_ptr<ExecServer>> ExecServer::Start(const fs::path& dir, Runner runner,
                                                      PortDialer dialer) {
  UniqueFd dir_fd(open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir_fd) return SystemError("open", dir, errno);
  const std::string path = ShortSocketPath(dir_fd.get(), kExecSocketFile);
  sockaddr_un addr = cri::UnixAddress(path);
  UniqueFd listener(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!listener) return SystemError("socket", dir / kExecSocketFile, errno);
  unlink(path.c_str());
  // Only root may connect: the socket runs commands in the pod's containers.
  const mode_t old_mask = umask(0077);
  const int bound = bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  const int bind_errno = errno;
  umask(old_mask);
  if (bound != 0) return SystemError("bind", dir / kExecSocketFile, bind_errno);
  if (listen(listener.get(), 16) != 0) return SystemError("listen", dir / kExecSocketFile, errno);
  std::unique_ptr<ExecServer> server(
      new ExecServer(dir, std::move(dir_fd), std::move(listener), std::move(runner),
                     std::move(dialer)));
  server->accept_thread_ = std::thread([s = server.get()] { s->Accept(); });
  return server;
}

ExecServer::ExecServer(fs::path dir, UniqueFd dir_fd, UniqueFd listener, Runner runner,
                       PortDialer dialer)
    : dir_(std::move(dir)),
      dir_fd_(std::move(dir_fd)),
      listener_(std::move(listener)),
      runner_(std::move(runner)),
      dialer_(std::move(dialer)),
      stop_(eventfd(0, EFD_CLOEXEC)) {}

ExecServer::~ExecServer() {
  stopping_ = true;
  const std::uint64_t one = 1;
  (void)write(stop_.get(), &one, sizeof one);
  shutdown(listener_.get(), SHUT_RDWR);
  if (accept_thread_.joinable()) accept_thread_.join();
  std::unique_lock lock(mu_);
  // A shut-down connection reads as the agent gone: each exec's watcher kills its process.
  for (const auto& [fd, unused] : connections_) shutdown(fd, SHUT_RDWR);
  idle_.wait(lock, [&] { return active_ == 0; });
  lock.unlock();
  unlink((dir_ / kExecSocketFile).c_str());
}

void ExecServer::SetRunning(std::map<std::string, RunningContainer> running) {
  std::lock_guard lock(mu_);
  running_ = std::move(running);
}

void ExecServer::Accept() {
  std::uint64_t serial = 0;
  while (!stopping_) {
    UniqueFd conn(accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn) {
      if (stopping_ || (errno != EINTR && errno != ECONNABORTED && errno != EMFILE)) break;
      if (errno == EMFILE) usleep(10000);
      continue;
    }
    std::lock_guard lock(mu_);
    if (stopping_) break;
    connections_[conn.get()] = true;
    ++active_;
    std::thread([this, c = std::move(conn), n = serial++]() mutable {
      const int fd = c.get();
      Serve(std::move(c), n);
      std::lock_guard done(mu_);
      connections_.erase(fd);
      if (--active_ == 0) idle_.notify_all();
    }).detach();
  }
}

// {"portForward": N}: the connected socket goes to the agent with {"started": true}, or the
// reason it could not connect as {"error": ...}.
void ExecServer::ServePortForward(int conn, int port) {
  if (port < 1 || port > 65535) {
    (void)SendExecMessage(conn, ErrorMessage(fmt::format("invalid port {}", port), false));
    return;
  }
  Result<UniqueFd> socket = dialer_ ? dialer_(port) : Failure("the pod has no sandbox");
  if (!socket) {
    (void)SendExecMessage(conn, ErrorMessage(socket.error().Message(), false));
    return;
  }
  const int fd = socket->get();
  (void)SendExecMessage(conn, R"({"started":true})", std::span<const int>(&fd, 1));
}

// {"attach": "app", "tty": false} with the read end of the client's input: copied into the
// container's stdin until it ends. With a terminal, no descriptor: the reply carries the master.
void ExecServer::ServeAttach(int conn, const std::string& container, bool tty,
                             std::vector<UniqueFd> fds) {
  std::shared_ptr<kubelet::ContainerInput> input;
  bool running = false;
  {
    std::lock_guard lock(mu_);
    if (auto it = running_.find(container); it != running_.end()) {
      running = true;
      input = it->second.input;
    }
  }
  if (!running) {
    (void)SendExecMessage(conn, ErrorMessage(cri::ContainerNotFound(container), true));
    return;
  }
  if (!input) {
    (void)SendExecMessage(conn, ErrorMessage(fmt::format("container {} does not have stdin: true: "
                                                         "its stdin is /dev/null",
                                                         container),
                                             false));
    return;
  }
  if (input->tty() != tty) {
    (void)SendExecMessage(conn, ErrorMessage(fmt::format("container {} {} a terminal", container,
                                                         input->tty() ? "has" : "does not have"),
                                             false));
    return;
  }
  if (tty) {
    UniqueFd master = input->Duplicate();
    if (!master) {
      (void)SendExecMessage(conn, ErrorMessage(cri::ContainerNotFound(container), true));
      return;
    }
    const int fd = master.get();
    (void)SendExecMessage(conn, R"({"started":true})", std::span<const int>(&fd, 1));
    return;
  }
  if (fds.size() != 1) {
    (void)SendExecMessage(conn, ErrorMessage("attach without a terminal needs 1 descriptor", false));
    return;
  }
  if (auto sent = SendExecMessage(conn, R"({"started":true})"); !sent) return;
  input->CopyFrom(fds[0].get(), stop_.get());
}

void ExecServer::Serve(UniqueFd conn, std::uint64_t serial) {
  auto message = ReceiveExecMessage(conn.get());
  if (!message || message->json.empty()) return;
  // One JSON object: a port-forward, an attach, or an exec.
  auto nodes = codec::ParseJsonStream(message->json);
  const bool object = nodes && nodes->size() == 1 && (*nodes)[0].IsObject();
  if (object) {
    const Node& n = (*nodes)[0];
    if (auto port = PortForwardPort(n)) return ServePortForward(conn.get(), *port);
    if (auto attach = ParseAttach(n)) {
      return ServeAttach(conn.get(), attach->container, attach->tty, std::move(message->fds));
    }
  }
  auto request = object ? ParseRequest((*nodes)[0]) : std::nullopt;
  if (!request) {
    (void)SendExecMessage(conn.get(), ErrorMessage("malformed exec request", false));
    return;
  }
  std::string id;
  {
    std::lock_guard lock(mu_);
    if (auto it = running_.find(request->container); it != running_.end()) id = it->second.id;
  }
  if (id.empty()) {
    // The kubelet's words (findContainer), which kubectl shows after "unable to upgrade connection: ".
    (void)SendExecMessage(conn.get(),
                          ErrorMessage(cri::ContainerNotFound(request->container),
                                       true));
    return;
  }
  if (!request->tty && message->fds.size() != 3) {
    (void)SendExecMessage(conn.get(), ErrorMessage("exec without a terminal needs 3 descriptors", false));
    return;
  }

  const std::string base = fmt::format("exec-{}-{}", getpid(), serial);
  cri::AttachedExec exec;
  exec.argv = request->command;
  exec.tty = request->tty;
  exec.pid_file = dir_ / (base + ".pid");
  std::optional<cri::ConsoleSocket> console;
  if (request->tty) {
    auto listening = cri::ConsoleSocket::Listen(ShortSocketPath(dir_fd_.get(), base + ".console"));
    if (!listening) {
      (void)SendExecMessage(conn.get(), ErrorMessage(listening.error().Message(), false));
      return;
    }
    console.emplace(std::move(*listening));
    // The runtime is another process: the path names this one's descriptor of the directory.
    exec.stdio.console_socket = fmt::format("/proc/{}/fd/{}/{}.console", getpid(), dir_fd_.get(), base);
  } else {
    exec.stdio.stdin_fd = message->fds[0].get();
    exec.stdio.stdout_fd = message->fds[1].get();
    exec.stdio.stderr_fd = message->fds[2].get();
    if (auto sent = SendExecMessage(conn.get(), R"({"started":true})"); !sent) return;
  }

  // The watcher: hands the terminal over once the runtime sends it, then kills the process if
  // the agent goes away before it ends.
  UniqueFd done(eventfd(0, EFD_CLOEXEC));
  std::thread watcher([&] {
    if (console) {
      pollfd fds[3] = {{console->listen_fd(), POLLIN, 0}, {conn.get(), POLLIN, 0},
                       {done.get(), POLLIN, 0}};
      while (poll(fds, 3, -1) < 0 && errno == EINTR) {
      }
      if (fds[2].revents != 0) return;  // the runtime ended before it sent a terminal
      if (fds[0].revents != 0) {
        auto master = console->ReceiveMaster();
        if (!master) {
          KillExecProcess(exec.pid_file);
          return;
        }
        const int fd = master->get();
        if (!SendExecMessage(conn.get(), R"({"started":true})", std::span<const int>(&fd, 1))) {
          KillExecProcess(exec.pid_file);
          return;
        }
      }
    }
    pollfd fds[2] = {{conn.get(), POLLIN, 0}, {done.get(), POLLIN, 0}};
    while (poll(fds, 2, -1) < 0 && errno == EINTR) {
    }
    if (fds[1].revents == 0) KillExecProcess(exec.pid_file);
  });
  auto end = runner_(id, exec);
  const std::uint64_t one = 1;
  (void)write(done.get(), &one, sizeof one);
  watcher.join();
  message->fds.clear();  // the process's stdio: the agent sees EOF once the process's copies close
  std::error_code ec;
  fs::remove(exec.pid_file, ec);
  if (!end) {
    (void)SendExecMessage(conn.get(), ErrorMessage(end.error().Message(), false));
  } else if (!end->runtime_error.empty()) {
    (void)SendExecMessage(conn.get(), ErrorMessage(end->runtime_error, false));
  } else {
    (void)SendExecMessage(conn.get(), fmt::format(R"({{"exitCode":{}}})", end->exit_code));
  }
}

}  // namespace podlimits::nodeagent
