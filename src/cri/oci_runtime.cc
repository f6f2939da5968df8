#include "cri/oci_runtime.h"

#include <fcntl.h>
#include <fmt/format.h>

#include <span>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <atomic>
#include <charconv>
#include <cstring>
#include <system_error>

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include "base/child_process.h"
#include "base/fs.h"
#include "base/error.h"
#include "cri/exec_cgroup_view.h"
#include "cri/exec_process.h"
#include "cri/oci_runtime_output.h"

namespace podlimits::cri {
namespace {

namespace fs = std::filesystem;

std::string_view Name(RuntimeKind kind) {
  return kind == RuntimeKind::kCrun ? "crun" : "runc";
}

// Both runtimes refuse odd ids themselves; this keeps the state-directory checks below (and
// the messages) on safe ground: an id is one path component.
bool ValidId(const std::string& id) {
  return !id.empty() && id != "." && id != ".." && id.find('/') == std::string::npos &&
         id.find('\0') == std::string::npos;
}

// The text of `file` from byte `offset` on.
Result<std::string> ReadFrom(const fs::path& file, off_t offset) {
  int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return SystemError("read", file, errno);
  std::string text;
  if (lseek(fd, offset, SEEK_SET) == offset) {
    char buf[8192];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      text.append(buf, static_cast<std::size_t>(n));
    }
  }
  close(fd);
  return text;
}

off_t SizeOf(const fs::path& file) {
  struct stat st;
  return stat(file.c_str(), &st) == 0 ? st.st_size : 0;
}

// `BINARY --root STATE_ROOT [--log LOG] --log-format json ARGS...`. JSON lines are what both
// crun and runc write to the log and, without --log, to stderr; the message is in "msg".
std::vector<std::string> CommandLine(const OciRuntimeClient& client, const fs::path* log,
                                     std::span<const std::string> args) {
  std::vector<std::string> argv = {client.Binary().string(), "--root",
                                   client.StateRoot().string()};
  if (log != nullptr) argv.insert(argv.end(), {"--log", log->string()});
  argv.insert(argv.end(), {"--log-format", "json"});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::vector<std::string> CommandLine(const OciRuntimeClient& client, const fs::path* log,
                                     std::initializer_list<std::string> args) {
  return CommandLine(client, log, std::span<const std::string>(args.begin(), args.size()));
}

Result<ChildResult> Run(const OciRuntimeClient& client, std::vector<std::string> argv) {
  ChildCommand command;
  command.argv = std::move(argv);
  command.timeout = client.timeout;
  return RunChild(command);
}

// Why a runtime command failed: its time limit, else its last error message (from the --log
// text when there is one, else from stderr), else how it ended.
std::string FailureReason(const OciRuntimeClient& client, const ChildResult& result,
                          std::string_view log_text) {
  if (result.timed_out) return result.Describe(client.timeout);
  std::string message = RuntimeMessage(log_text);
  if (message.empty()) message = RuntimeMessage(result.err);
  if (message.empty()) message = result.Describe(client.timeout);
  return message;
}

std::string Failed(const OciRuntimeClient& client, std::string_view command, const std::string& id,
                   std::string_view reason) {
  return fmt::format("{} {} {}: {}", Name(client.kind()), command, id, reason);
}

// Whether the runtime keeps any state for `id`: both crun and runc keep it in STATE_ROOT/ID.
bool Known(const OciRuntimeClient& client, const std::string& id) {
  std::error_code ec;
  return fs::exists(client.StateRoot() / id, ec) || ec;
}

Result<pid_t> ReadPidFile(const fs::path& file) {
  auto text = ReadFrom(file, 0);
  if (!text) return std::unexpected(text.error());
  while (!text->empty() && (text->back() == '\n' || text->back() == ' ')) text->pop_back();
  pid_t pid = 0;
  const char* last = text->data() + text->size();
  auto [end, ec] = std::from_chars(text->data(), last, pid);
  if (ec != std::errc() || end != last || pid <= 0) {
    return Failure(fmt::format("read \"{}\": \"{}\" is not a pid", file.string(), *text));
  }
  return pid;
}

}  // namespace

OciRuntimeClient::OciRuntimeClient(RuntimeKind kind, std::filesystem::path binary,
                                   std::filesystem::path state_root)
    : binary_(std::move(binary)), state_root_(std::move(state_root)), kind_(kind) {
  // Created here with 0700 (the runtimes would make it with their own mode). A failure shows
  // up as the runtime's own error on first use.
  std::error_code ec;
  if (state_root_.has_parent_path()) fs::create_directories(state_root_.parent_path(), ec);
  mkdir(state_root_.c_str(), 0700);
}

Result<pid_t> OciRuntimeClient::Create(const std::string& id, const std::filesystem::path& bundle,
                                       const ContainerStdio& stdio, bool* refused) {
  if (refused != nullptr) *refused = false;
  if (!ValidId(id)) return Failure(Failed(*this, "create", id, "invalid container id"));
  const fs::path log = bundle / "runtime.log";
  const fs::path pid_file = bundle / "init.pid";
  std::error_code ec;
  fs::remove(pid_file, ec);  // never read a pid left by an earlier attempt
  // Only what this call adds to the log explains its failure.
  const off_t log_offset = SizeOf(log);

  ChildCommand command;
  std::vector<std::string> args = {"create", "--bundle", bundle.string(), "--pid-file",
                                   pid_file.string()};
  if (!stdio.console_socket.empty()) {
    args.push_back("--console-socket");
    args.push_back(stdio.console_socket.string());
  }
  args.push_back(id);
  command.argv = CommandLine(*this, &log, args);
  // The runtime hands its own stdio to the container process, so the container's stdio is the
  // runtime's: its stderr is not captured (the message comes from the log instead).
  command.stdin_fd = stdio.stdin_fd >= 0 ? stdio.stdin_fd : ChildCommand::kDevNull;
  command.stdout_fd = stdio.stdout_fd >= 0 ? stdio.stdout_fd : ChildCommand::kDevNull;
  command.stderr_fd = stdio.stderr_fd >= 0 ? stdio.stderr_fd : ChildCommand::kDevNull;
  command.timeout = timeout;
  auto result = RunChild(command);
  if (!result) return Failure(Failed(*this, "create", id, result.error().Message()));

  // A failed or half-done create must leave nothing behind: no state, no cgroup, no process.
  auto fail = [&](std::string reason) -> std::unexpected<Error> {
    if (auto d = Delete(id); !d) reason += fmt::format(" (and then: {})", d.error().Message());
    return Failure(Failed(*this, "create", id, reason));
  };
  if (!result->Succeeded()) {
    if (refused != nullptr) *refused = !result->timed_out;
    return fail(FailureReason(*this, *result, ReadFrom(log, log_offset).value_or("")));
  }
  auto pid = ReadPidFile(pid_file);
  if (!pid) return fail(pid.error().Message());
  return *pid;
}

Result<void> OciRuntimeClient::Start(const std::string& id, bool* refused) {
  if (refused != nullptr) *refused = false;
  if (!ValidId(id)) return Failure(Failed(*this, "start", id, "invalid container id"));
  auto result = Run(*this, CommandLine(*this, nullptr, {"start", id}));
  if (!result) return Failure(Failed(*this, "start", id, result.error().Message()));
  if (!result->Succeeded()) {
    if (refused != nullptr) *refused = !result->timed_out;
    return Failure(Failed(*this, "start", id, FailureReason(*this, *result, "")));
  }
  return {};
}

Result<ContainerState> OciRuntimeClient::State(const std::string& id) {
  if (!ValidId(id)) return Failure(Failed(*this, "state", id, "invalid container id"));
  auto result = Run(*this, CommandLine(*this, nullptr, {"state", id}));
  if (!result) return Failure(Failed(*this, "state", id, result.error().Message()));
  if (!result->Succeeded()) {
    return Failure(Failed(*this, "state", id, FailureReason(*this, *result, "")));
  }
  auto state = ParseContainerState(result->out);
  if (!state) return Failure(Failed(*this, "state", id, state.error().Message()));
  return state;
}

Result<void> OciRuntimeClient::Kill(const std::string& id, int signal, bool all) {
  if (!ValidId(id)) return Failure(Failed(*this, "kill", id, "invalid container id"));
  std::vector<std::string> argv = CommandLine(*this, nullptr, {"kill"});
  if (all) argv.push_back("--all");
  argv.insert(argv.end(), {id, std::to_string(signal)});
  auto result = Run(*this, std::move(argv));
  if (!result) return Failure(Failed(*this, "kill", id, result.error().Message()));
  if (result->Succeeded()) return {};
  // The runtimes word "nothing to kill" differently (crun: `kill container: No such process`,
  // runc: `container not running`), so ask the state instead: a container that is gone or
  // stopped has nothing left to signal.
  if (!Known(*this, id)) return {};
  auto state = State(id);
  if ((state && state->status == "stopped") || (!state && !Known(*this, id))) return {};
  return Failure(Failed(*this, "kill", id, FailureReason(*this, *result, "")));
}

// What an exec needs from the config.json of the container's bundle.
Result<OciRuntimeClient::ExecTarget> OciRuntimeClient::ExecTargetOf(const std::string& id) {
  {
    std::lock_guard lock(*exec_targets_mu_);
    if (auto it = exec_targets_.find(id); it != exec_targets_.end()) return it->second;
  }
  auto state = State(id);
  if (!state) return std::unexpected(state.error());
  const fs::path config = state->bundle / "config.json";
  auto text = ReadSmallFile(config, 16 << 20);
  if (!text) return std::unexpected(text.error());
  rapidjson::Document doc;
  doc.Parse(text->data(), text->size());
  const rapidjson::Value* path = rapidjson::Pointer("/linux/cgroupsPath").Get(doc);
  if (doc.HasParseError() || path == nullptr || !path->IsString()) {
    return Failure("read", config, "no linux.cgroupsPath");
  }
  auto process = ContainerProcessJson(*text, fmt::format("\"{}\"", config.string()));
  if (!process) return std::unexpected(process.error());
  ExecTarget target{state->bundle, std::string(path->GetString(), path->GetStringLength()),
                    std::move(*process)};
  std::lock_guard lock(*exec_targets_mu_);
  exec_targets_[id] = target;
  return target;
}

Result<ChildResult> OciRuntimeClient::RunExec(const std::string& id, const ExecTarget& target,
                                              const std::vector<std::string>& argv, bool tty,
                                              std::vector<std::string> exec_flags,
                                              ChildCommand command, const fs::path* log) {
  auto process = ExecProcessJson(target.process_json, argv, tty);
  if (!process) return std::unexpected(process.error());
  // One file per exec, in the bundle (removed with it at the latest).
  static std::atomic<std::uint64_t> serial{0};
  const fs::path file =
      target.bundle / fmt::format("exec-{}-{}.json", getpid(), serial.fetch_add(1));
  if (auto w = WriteFileAtomically(file, *process, 0600); !w) return std::unexpected(w.error());
  std::vector<std::string> args = {"exec", "--process", file.string()};
  args.insert(args.end(), exec_flags.begin(), exec_flags.end());
  args.push_back(id);
  command.argv = CommandLine(*this, log, args);
  Result<ChildResult> result = Failure("not run");
  if (kind() == RuntimeKind::kCrun && ExecNeedsFreezerView()) {
    auto ran = RunInFreezerView(target.cgroup_path, [&] { result = RunChild(command); });
    if (!ran) result = std::unexpected(ran.error());
  } else {
    result = RunChild(command);
  }
  std::error_code ec;
  fs::remove(file, ec);
  return result;
}

Result<ExecResult> OciRuntimeClient::Exec(const std::string& id,
                                          const std::vector<std::string>& argv,
                                          std::chrono::milliseconds timeout) {
  if (!ValidId(id)) return Failure(Failed(*this, "exec", id, "invalid container id"));
  if (argv.empty()) return Failure(Failed(*this, "exec", id, "no command"));
  auto target = ExecTargetOf(id);
  if (!target) return Failure(Failed(*this, "exec", id, target.error().Message()));
  ChildCommand command;
  command.timeout = timeout;
  auto result = RunExec(id, *target, argv, false, {}, std::move(command), nullptr);
  if (!result) return Failure(Failed(*this, "exec", id, result.error().Message()));
  ExecResult out;
  out.timed_out = result->timed_out;
  out.exit_code = result->timed_out ? -1 : result->exit_code;
  out.output = result->out + result->err;
  out.error_output = result->err;
  return out;
}

Result<AttachedExecEnd> OciRuntimeClient::ExecAttached(const std::string& id,
                                                       const AttachedExec& exec) {
  if (!ValidId(id)) return Failure(Failed(*this, "exec", id, "invalid container id"));
  if (exec.argv.empty()) return Failure(Failed(*this, "exec", id, "no command"));
  auto target = ExecTargetOf(id);
  if (!target) return Failure(Failed(*this, "exec", id, target.error().Message()));
  if (exec.tty && kind() == RuntimeKind::kRunc) {
    // runc's exec hands the terminal to a console socket only with --detach; attached, it relays
    // the terminal to its own stdin, which must then be a terminal (runc's setupIO).
    return Failure(Failed(*this, "exec", id,
                          "a terminal (kubectl exec -t) needs crun on this node; runc runs "
                          "attached execs without one only"));
  }
  std::vector<std::string> flags = {"--pid-file", exec.pid_file.string()};
  ChildCommand command;
  command.timeout = std::chrono::milliseconds(0);  // as long as its user keeps it
  if (exec.tty) {
    flags.insert(flags.end(), {"--tty", "--console-socket", exec.stdio.console_socket.string()});
    command.stdin_fd = command.stdout_fd = command.stderr_fd = ChildCommand::kDevNull;
  } else {
    // The runtime hands its stdio to the process; its own messages go to the log.
    command.stdin_fd = exec.stdio.stdin_fd >= 0 ? exec.stdio.stdin_fd : ChildCommand::kDevNull;
    command.stdout_fd = exec.stdio.stdout_fd >= 0 ? exec.stdio.stdout_fd : ChildCommand::kDevNull;
    command.stderr_fd = exec.stdio.stderr_fd >= 0 ? exec.stdio.stderr_fd : ChildCommand::kDevNull;
  }
  const fs::path log = fs::path(exec.pid_file).replace_extension(".log");
  std::error_code ec;
  fs::remove(log, ec);
  auto result = RunExec(id, *target, exec.argv, exec.tty, std::move(flags), std::move(command), &log);
  const std::string log_text = ReadFrom(log, 0).value_or("");
  fs::remove(log, ec);
  if (!result) return Failure(Failed(*this, "exec", id, result.error().Message()));
  AttachedExecEnd end;
  end.exit_code = result->exit_code >= 0 ? result->exit_code : 128 + result->signal;
  if (result->exit_code != 0) {
    std::string message = RuntimeMessage(log_text);
    if (!message.empty()) end.runtime_error = Failed(*this, "exec", id, message);
  }
  return end;
}

Result<void> OciRuntimeClient::Delete(const std::string& id) {
  if (!ValidId(id)) return Failure(Failed(*this, "delete", id, "invalid container id"));
  {
    std::lock_guard lock(*exec_targets_mu_);
    exec_targets_.erase(id);
  }
  auto result = Run(*this, CommandLine(*this, nullptr, {"delete", "--force", id}));
  if (!result) return Failure(Failed(*this, "delete", id, result.error().Message()));
  // With --force both runtimes succeed for an unknown id (measured); an older one that does
  // not has still nothing left to delete.
  if (result->Succeeded() || !Known(*this, id)) return {};
  return Failure(Failed(*this, "delete", id, FailureReason(*this, *result, "")));
}

}  // namespace podlimits::cri
