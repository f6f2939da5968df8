#include "runcwrap/wrapper.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/child_process.h"
#include "base/fs.h"
#include "base/numbers.h"
#include "codec/json_codec.h"
#include "cri/process_limits.h"
#include "runcwrap/bundle_request.h"
#include "runcwrap/create_plan.h"
#include "runcwrap/exec_limits.h"
#include "runcwrap/front_record.h"
#include "runcwrap/runc_args.h"
#include "runcwrap/runtime_log.h"
#include "runcwrap/wrapper_config.h"

namespace podlimits::runcwrap {
namespace {

namespace fs = std::filesystem;
using codec::Node;

constexpr std::size_t kMaxSpecSize = 64u << 20;  // config.json; containerd's are a few KiB

std::vector<char*> Argv(const fs::path& runtime, std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(runtime.c_str()));
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// Replaces this process with the runtime. Returns only on failure.
int Exec(const fs::path& runtime, std::vector<std::string> args, const RuntimeLog& log) {
  auto argv = Argv(runtime, args);
  ::execv(runtime.c_str(), argv.data());
  log.Error(fmt::format("execv {}: {}", runtime.string(), std::strerror(errno)));
  return 1;
}

pid_t g_child = 0;

void Forward(int sig) {
  if (g_child > 0) ::kill(g_child, sig);
}

// Runs the runtime with every descriptor of this process (the shim's stdio, --preserve-fds) and
// waits for it, passing on the signals a shim or a terminal sends meanwhile.
Result<int> RunRuntime(const fs::path& runtime, std::vector<std::string> args) {
  auto argv = Argv(runtime, args);
  pid_t pid = ::fork();
  if (pid < 0) return SystemError("fork", runtime, errno, "run the OCI runtime");
  if (pid == 0) {
    ::execv(runtime.c_str(), argv.data());
    std::fprintf(stderr, "podlimits-runc: execv %s: %s\n", runtime.c_str(), std::strerror(errno));
    ::_exit(127);
  }
  g_child = pid;
  struct sigaction sa {};
  sa.sa_handler = Forward;
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH}) {
    ::sigaction(sig, &sa, nullptr);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return SystemError("waitpid", runtime, errno);
  }
  g_child = 0;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

// The runtime again with the same global options (`state`, `delete --force`).
Result<ChildResult> RuntimeAgain(const fs::path& runtime, const RuncCall& call,
                                 std::vector<std::string> command) {
  ChildCommand c;
  c.argv.push_back(runtime.string());
  for (const auto& g : call.global_args) c.argv.push_back(g);
  for (auto& a : command) c.argv.push_back(std::move(a));
  c.timeout = std::chrono::seconds(30);
  return RunChild(c);
}

// The runtime's `state` of the call's container: the OCI state (id, status, pid, bundle, ...)
// runc and crun both print.
Result<Node> RuntimeState(const fs::path& runtime, const RuncCall& call) {
  auto state = RuntimeAgain(runtime, call, {"state", call.container_id});
  if (!state) return std::unexpected(state.error());
  if (!state->Succeeded()) {
    return Failure(fmt::format("{} state {}: {}", runtime.string(), call.container_id,
                               state->err.empty() ? state->Describe(std::chrono::seconds(30))
                                                  : state->err));
  }
  auto parsed = codec::ParseJsonStream(state->out);
  if (!parsed || parsed->size() != 1 || !(*parsed)[0].IsObject()) {
    return Failure(runtime.string() + " state: its answer is not one JSON object");
  }
  return std::move((*parsed)[0]);
}

// The container's init process: the pid file the runtime wrote, else `state`.
Result<pid_t> InitPid(const fs::path& runtime, const RuncCall& call) {
  if (call.pid_file) {
    auto text = ReadSmallFile(*call.pid_file, 64);
    if (!text) return std::unexpected(text.error());
    auto pid = ParseInt64(std::string_view(*text).substr(0, text->find_first_of("\n ")));
    if (!pid || *pid <= 0) return Failure("read", *call.pid_file, "not a process id");
    return static_cast<pid_t>(*pid);
  }
  auto state = RuntimeState(runtime, call);
  if (!state) return std::unexpected(state.error());
  const Node* pid = state->Find("pid");
  auto value = pid ? ParseInt64(pid->scalar) : std::nullopt;
  if (!value || *value <= 0) return Failure(runtime.string() + " state: no pid in its answer");
  return static_cast<pid_t>(*value);
}

std::string Format(kubelet::RlimValue v) {
  return v == kubelet::kRlimInfinity ? "unlimited" : std::to_string(v);
}

// What was applied, for the log.
std::string Summary(const CreatePlan& plan, const std::optional<PodCgroupState>& pod) {
  std::vector<std::string> parts;
  for (const auto& g : plan.edits.rlimits) {
    parts.push_back(fmt::format("{}={}:{}", RlimitType(g.name), Format(g.soft), Format(g.hard)));
  }
  if (plan.edits.writable_cgroup) parts.emplace_back("cgroup namespace + rw /sys/fs/cgroup");
  if (pod) {
    if (plan.pod_limits.pids_max) {
      parts.push_back(fmt::format("{}/pids.max={}", pod->dir.string(),
                                  cgroups::FormatMaxValue(pod->pids_max)));
    }
    if (plan.pod_limits.max_descendants) {
      parts.push_back(fmt::format("cgroup.max.descendants={} cgroup.max.depth={}",
                                  cgroups::FormatMaxValue(pod->max_descendants),
                                  cgroups::FormatMaxValue(pod->max_depth)));
    }
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// After the runtime's create: the init process has every rlimit asked for (corrected with
// prlimit where the runtime fell short) and the pod cgroup still holds its limit.
Result<void> ReadBack(const CreatePlan& plan, pid_t pid, const NodeFacts& node,
                      const RuntimeLog& log) {
  if (!plan.edits.rlimits.empty()) {
    std::vector<cri::Rlimit> wanted;
    for (const auto& g : plan.edits.rlimits) {
      wanted.push_back({RlimitType(g.name), g.soft, g.hard});
    }
    auto corrected = cri::CorrectProcessLimits(pid, wanted);
    if (!corrected) return std::unexpected(corrected.error());
    for (const auto& c : *corrected) {
      log.Warning(fmt::format("the runtime left {} of pid {} at {}:{}; set to {}:{}",
                              c.wanted.type, pid, Format(c.found_soft), Format(c.found_hard),
                              Format(c.wanted.soft), Format(c.wanted.hard)));
    }
  }
  if (plan.pod_cgroup && plan.pod_limits.pids_max) {
    // Lowering is idempotent: whoever raised it meanwhile is overruled, and the value read back.
    PodCgroupLimits pids_only;
    pids_only.pids_max = plan.pod_limits.pids_max;
    auto state = ApplyPodCgroupLimits(node.unified_root, *plan.pod_cgroup, pids_only);
    if (!state) return std::unexpected(state.error());
  }
  return {};
}

int Refuse(const RuntimeLog& log, const std::string& message) {
  log.Error(message);
  return 1;
}

Result<Node> ReadJsonObject(const fs::path& path) {
  auto text = ReadSmallFile(path, kMaxSpecSize);
  if (!text) return std::unexpected(text.error());
  auto parsed = codec::ParseJsonStream(*text);
  if (!parsed || parsed->size() != 1 || !(*parsed)[0].IsObject()) {
    return Failure(fmt::format("{}: not one JSON object", path.string()));
  }
  return std::move((*parsed)[0]);
}

// The container's bundle. containerd's runc shim runs every call with `--log BUNDLE/log.json`,
// and its bundles are named by the container id: a directory so named, holding a config.json,
// is the bundle without asking the runtime (a `runc state` is a Go program's start, several
// milliseconds per exec). Otherwise (CRI-O, a runtime called by hand) the runtime's `state`.
Result<fs::path> BundleOf(const fs::path& runtime, const RuncCall& call) {
  if (call.log_file) {
    fs::path dir = fs::path(*call.log_file).parent_path();
    std::error_code ec;
    if (!call.container_id.empty() && dir.filename() == call.container_id &&
        fs::is_regular_file(dir / "config.json", ec)) {
      return dir;
    }
  }
  auto state = RuntimeState(runtime, call);
  if (!state) return std::unexpected(state.error());
  const Node* bundle = state->Find("bundle");
  if (bundle == nullptr || bundle->scalar.empty()) {
    return Failure(runtime.string() + " state: no bundle in its answer");
  }
  return fs::path(bundle->scalar);
}

// `exec --process FILE ID` into a container whose annotations ask for ulimits: the process gets
// the container's rlimits (exec_limits.h), then the call goes to the runtime. Every other exec
// is handed over untouched. Returns only on failure.
int ExecWithContainerLimits(const WrapperConfig& config, const RuncCall& call,
                            std::vector<std::string> args, const RuntimeLog& log) {
  if (!call.process_file) return Exec(config.runtime, std::move(args), log);
  auto bundle = BundleOf(config.runtime, call);
  if (!bundle) return Refuse(log, fmt::format("exec into {}: {}", call.container_id,
                                              bundle.error().Message()));
  auto spec = ReadJsonObject(*bundle / "config.json");
  if (!spec) return Refuse(log, spec.error().Message());
  auto request = ReadBundleRequest(spec->Find("annotations"));
  const bool has_ulimits = request && request->container && request->container->security_context &&
                           request->container->security_context->ulimits;
  if (!has_ulimits) return Exec(config.runtime, std::move(args), log);
  auto process = ReadJsonObject(*call.process_file);
  if (!process) return Refuse(log, process.error().Message());
  auto changed = CopyContainerRlimits(*spec, *process);
  if (!changed) return Refuse(log, fmt::format("{}: exec: {}", request->Subject(),
                                               changed.error().Message()));
  if (*changed) {
    if (auto ok = ReplaceFile(*call.process_file, codec::EncodeJson(*process, 0), 0600); !ok) {
      return Refuse(log, ok.error().Message());
    }
  }
  return Exec(config.runtime, std::move(args), log);
}

}  // namespace

int RuncWrapperMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto call = ParseRuncCall(args);
  RuntimeLog log(call ? call->log_file : std::nullopt, call ? call->log_format : "text");
  if (!call) return Refuse(log, call.error().Message());
  auto config = LoadWrapperConfig(std::getenv(std::string(kConfigEnv).c_str()));
  if (!config) return Refuse(log, config.error().Message());
  // The front (front/runc_front.h) may now send this configuration's calls that create nothing
  // straight to its runtime.
  RecordRuntimeForFront(*config);
  if (call->Execs()) return ExecWithContainerLimits(*config, *call, std::move(args), log);
  if (!call->Creates()) return Exec(config->runtime, std::move(args), log);

  const fs::path spec_path = call->bundle / "config.json";
  auto read = ReadJsonObject(spec_path);
  if (!read) return Refuse(log, read.error().Message());
  Node spec = std::move(*read);
  auto request = ReadBundleRequest(spec.Find("annotations"));
  if (!request) return Refuse(log, request.error().Message());
  if (!request->Any() && !ConfigAppliesWithoutAnnotations(*request, *config)) {
    if (config->require_pod_annotations && request->role == BundleRole::kSandbox) {
      return Refuse(log, fmt::format(
          "{} carries no podlimits annotation, and this node requires them "
          "(requirePodAnnotations): the CRI runtime passes none to this handler (containerd: "
          "pod_annotations of the runtime; see deploy/runc-wrapper)",
          request->Subject()));
    }
    return Exec(config->runtime, std::move(args), log);
  }

  const NodeFacts node = ProbeNodeFacts(*request);
  auto plan = PlanCreate(*request, spec, node, *config);
  if (!plan) return Refuse(log, plan.error().Message());
  for (const auto& w : plan->warnings) log.Warning(fmt::format("{}: {}", request->Subject(), w));

  // The pod cgroup before the container: no process of the pod may run unbounded.
  std::optional<PodCgroupState> pod_state;
  if (plan->pod_cgroup) {
    auto applied = ApplyPodCgroupLimits(node.unified_root, *plan->pod_cgroup, plan->pod_limits);
    if (!applied) return Refuse(log, fmt::format("{}: {}", request->Subject(),
                                                 applied.error().Message()));
    pod_state = std::move(*applied);
  }
  auto changed = EditSpec(spec, plan->edits);
  if (!changed) return Refuse(log, fmt::format("{}: {}", request->Subject(),
                                               changed.error().Message()));
  if (*changed) {
    struct stat st {};
    mode_t mode = ::stat(spec_path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
    // Renamed into place, not fsynced: the runtime reads it at once, and a bundle means nothing
    // after a reboot (its container is gone). An fsync here was a journal commit per create on
    // an ext4 state directory, milliseconds the shim waited for.
    if (auto ok = ReplaceFile(spec_path, codec::EncodeJson(spec, 0), mode); !ok) {
      return Refuse(log, ok.error().Message());
    }
  }
  log.Info(fmt::format("podlimits-runc: {}: {}", request->Subject(), Summary(*plan, pod_state)));

  if (call->command == "run" && !call->detach) return Exec(config->runtime, std::move(args), log);
  auto status = RunRuntime(config->runtime, args);
  if (!status) return Refuse(log, status.error().Message());
  if (*status != 0) return *status;  // the runtime said why, in the same log

  auto pid = InitPid(config->runtime, *call);
  Result<void> held = pid ? ReadBack(*plan, *pid, node, log) : std::unexpected(pid.error());
  if (held) return 0;
  std::string message = fmt::format("{}: {}", request->Subject(), held.error().Message());
  auto removed = RuntimeAgain(config->runtime, *call, {"delete", "--force", call->container_id});
  if (!removed || !removed->Succeeded()) {
    message += fmt::format("; and removing the container failed: {}",
                           removed ? removed->err : removed.error().Message());
  }
  return Refuse(log, message);
}

}  // namespace podlimits::runcwrap
