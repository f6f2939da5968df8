#include "nodeagent/pod_monitor.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <mutex>

#include "api/pod_object.h"
#include "api/qos.h"
#include "base/clock_text.h"
#include "base/fs.h"
#include "base/server_process.h"
#include "codec/json_codec.h"
#include "kubelet/eviction/eviction_manager.h"
#include "kubelet/kubelet.h"
#include "kubelet/network/pod_port_dial.h"
#include "kubelet/podworker/stop_signals.h"
#include "kubelet/status/pod_api_status.h"
#include "nodeagent/exec_server.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/spec_update_signal.h"
#include "nodeagent/store_object_source.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using codec::Node;

namespace {

constexpr int kExitMonitorFailure = 3;

// Writes each status and event to the directory and tells the agent.
class Publisher {
 public:
  Publisher(const PodMonitorOptions& options, fs::path dir, kubelet::PodStatusContext context)
      : options_(options), dir_(std::move(dir)), context_(std::move(context)) {
    if (auto before = ReadMonitorStatus(dir_)) previous_ = std::move(before->status);
  }

  void Event(const kubelet::Event& e) {
    std::lock_guard lock(mu_);
    MonitorEvent m = MonitorEventNow(e);
    if (m.nanos <= last_nanos_) m.nanos = last_nanos_ + 1;  // one name per event
    last_nanos_ = m.nanos;
    if (auto w = AppendMonitorEvent(dir_, m); !w) Log(w.error().Message());
    NotifyAgent(options_.data_dir, options_.uid);
  }

  void Progress(const kubelet::PodProgress& p) {
    Node status = kubelet::PodApiStatus(p, context_, previous_ ? &*previous_ : nullptr, Rfc3339Now());
    // A pod the node itself stopped ends as that kill left it (the eviction manager's or the
    // node shutdown manager's), whatever its containers' exits said.
    if (p.finished) {
      ApplyNodeKill(status, {ReadEvictionMessage(dir_), ReadNodeShutdownMessage(dir_)});
    }
    Write(std::move(status), p.finished);
  }

  // A pod the node never ran: the kubelet's rejectPod status, with the startTime its status
  // manager gives every status that has none (updateStatusInternal), kept across rewrites.
  void NotRun(const std::string& reason, const std::string& message) {
    const Node* started = previous_ ? previous_->FindPath({"startTime"}) : nullptr;
    Write(RejectedPodStatus(reason, message,
                            started != nullptr && started->IsString() ? started->scalar
                                                                      : Rfc3339Now(),
                            context_.qos_class),
          true);
  }

  static void Log(const std::string& line) {
    std::fprintf(stderr, "pod-monitor: %s\n", line.c_str());
    std::fflush(stderr);
  }

 private:
  void Write(Node status, bool finished) {
    std::lock_guard lock(mu_);
    if (auto w = WriteMonitorStatus(dir_, {status, finished}); !w) Log(w.error().Message());
    previous_ = std::move(status);
    NotifyAgent(options_.data_dir, options_.uid);
  }

  const PodMonitorOptions& options_;
  fs::path dir_;
  kubelet::PodStatusContext context_;
  std::mutex mu_;
  std::optional<Node> previous_;
  std::int64_t last_nanos_ = 0;
};

// The pod this monitor runs, from its directory: the tree and its typed view, read once.
Result<api::PodObject> ReadMonitoredPod(const fs::path& dir) {
  auto text = ReadSmallFile(dir / "pod.json", 4 << 20);
  if (!text) return std::unexpected(std::move(text.error()));
  auto nodes = codec::ParseJsonStream(*text);
  if (!nodes || nodes->size() != 1) {
    return Failure((dir / "pod.json").string() + ": not one JSON object");
  }
  return api::PodObject::FromTree(std::move((*nodes)[0]));
}

kubelet::PodStatusContext StatusContext(const api::Pod& pod, const PodMonitorOptions& options) {
  kubelet::PodStatusContext context;
  context.restart_policy = pod.spec.restart_policy.empty() ? "Always" : pod.spec.restart_policy;
  context.qos_class = std::string(
      api::Name(api::ComputePodQos(pod, options.config.feature_gates.pod_level_resources)));
  context.host_ip = options.host_ip;
  if (pod.spec.host_network) context.pod_ip = options.host_ip;
  return context;
}

// Where `kubectl port-forward` dials from: the sandbox's holder, once there is one. Written by
// the pod's thread, read by the exec server's.
class SandboxAddress {
 public:
  void Set(pid_t pid, std::string id) {
    std::lock_guard lock(mu_);
    pid_ = pid;
    id_ = std::move(id);
  }
  Result<UniqueFd> Dial(int port) const {
    std::unique_lock lock(mu_);
    const pid_t pid = pid_;
    const std::string id = id_;
    lock.unlock();
    return kubelet::DialPodPort(pid, id, port);  // an error in the kubelet's words for kubectl
  }

 private:
  mutable std::mutex mu_;
  pid_t pid_ = 0;
  std::string id_;
};

// What the monitor does whenever where the pod stands changed: marks the applied pid limit for
// the agent's metric, remembers the sandbox for port-forward, tells the exec server which
// containers run, and publishes the status.
struct ProgressHandler {
  const fs::path& dir;
  kubelet::Kubelet& node;
  SandboxAddress& sandbox;
  ExecServer* exec_server;  // null: exec is not served
  Publisher& publisher;
  bool pid_limit_marked = false;

  void operator()(const kubelet::PodProgress& p) {
    // The agent's kubelet_pod_pid_limit_applied_total counts what this monitor's node applied.
    if (!pid_limit_marked && node.metrics().PodPIDLimitApplied().Value() > 0) {
      pid_limit_marked = true;
      (void)WriteFileAtomically(dir / kPidLimitAppliedFile, "1\n", 0600);
    }
    sandbox.Set(p.sandbox_pid, p.sandbox_id);
    if (exec_server != nullptr) {
      constexpr std::string_view kScheme = "podlimits://";
      std::map<std::string, ExecServer::RunningContainer> running;
      for (const auto& c : p.containers) {
        if (c.state == kubelet::ContainerProgress::State::kRunning &&
            c.container_id.starts_with(kScheme)) {
          running[c.name] = {c.container_id.substr(kScheme.size()), c.input};
        }
      }
      exec_server->SetRunning(std::move(running));
    }
    publisher.Progress(p);
  }
};

void PublishOutcome(const kubelet::PodOutcome& outcome, Publisher& publisher) {
  switch (outcome.kind) {
    case kubelet::PodOutcome::Kind::kRejected:
    case kubelet::PodOutcome::Kind::kNodeFailure:
      publisher.NotRun(outcome.reason, outcome.status_message);
      break;
    case kubelet::PodOutcome::Kind::kRan:
      for (const auto& e : outcome.result.teardown_errors) Publisher::Log("teardown: " + e);
      break;
  }
}

}  // namespace

int RunPodMonitor(const PodMonitorOptions& options) {
  const fs::path dir = MonitorDirectory(options.data_dir, options.uid);
  // Before the lock: from then on the agent may signal a spec update.
  SpecUpdateSignal spec_update_signal;
  auto lock = LockMonitor(dir);
  if (!lock) {
    Publisher::Log(fmt::format("{}: another monitor holds this pod, or its directory is unusable",
                               dir.string()));
    return kExitMonitorFailure;
  }
  auto pod_object = ReadMonitoredPod(dir);
  if (!pod_object) {
    Publisher::Log(pod_object.error().Message());
    return kExitMonitorFailure;
  }
  const api::Pod& pod = pod_object->pod;
  Publisher publisher(options, dir, StatusContext(pod, options));

  auto store = storage::ObjectStore::Open(options.data_dir / "state.db");
  if (!store) {
    publisher.NotRun("NodeFailure", store.error().Message());
    return 0;
  }
  StoreObjectSource objects(**store);
  kubelet::KubeletOptions kubelet_options{options.config, options.image_root, options.path_env};
  kubelet_options.node_ip = options.host_ip;
  kubelet::Kubelet node(std::move(kubelet_options));
  if (auto started = node.Start(); !started) {
    publisher.NotRun(started.error().reason, started.error().Message());
    return 0;
  }
  kubelet::PodStop stop;
  // SIGTERM (from the agent) stops the pod with the grace period of the `stop` file; SIGINT and
  // SIGHUP with the pod's own. A closed pipe is an error, not a death.
  IgnoreBrokenPipes();
  kubelet::StopSignals signals(stop, {SIGHUP, SIGINT, SIGTERM}, [&dir](int sig) {
    return sig == SIGTERM ? ReadStopGrace(dir) : std::nullopt;
  });
  if (!signals.ok()) {
    publisher.NotRun("NodeFailure", "signalfd: cannot watch the stop signals");
    return 0;
  }
  // `kubectl exec` and `port-forward` reach the pod through this monitor (exec_server.h).
  // Started once the stop signals are blocked: its threads inherit the mask, so SIGTERM still
  // reaches the signalfd.
  SandboxAddress sandbox;
  auto exec_server = ExecServer::Start(
      dir,
      [&node](const std::string& id, const cri::AttachedExec& exec) {
        return node.runtime()->ExecAttached(id, exec);
      },
      [&sandbox](int port) { return sandbox.Dial(port); });
  if (!exec_server) Publisher::Log("exec: " + exec_server.error().Message());
  // A stop asked for before the monitor could listen (the pod was deleted while it started).
  if (auto grace = ReadStopGrace(dir)) stop.Request(*grace);

  kubelet::EventRecorder events([&publisher](const kubelet::Event& e) { publisher.Event(e); });
  cri::CriLogOutput output(cri::PodLogDirectory(options.pod_logs_dir, pod.metadata.namespace_,
                                                pod.metadata.name, options.uid),
                           options.log_policy);
  kubelet::PodRunIo io{&events, &output, &stop, &objects, {}, {}, {}};
  // An update of the running pod (new images, a new deadline, ephemeral containers): pod.json as
  // the agent rewrote it.
  kubelet::PodSpecUpdates spec_updates;
  io.spec_updates = &spec_updates;
  const bool watching = spec_update_signal.Watch([&dir, &spec_updates, &node] {
    auto updated = ReadMonitoredPod(dir);
    if (!updated) {
      Publisher::Log("spec update: " + updated.error().Message());
      return;
    }
    spec_updates.Push(node.PlanSpecUpdate(updated->pod));
  });
  if (!watching) Publisher::Log("spec update: cannot watch its signal; the pod keeps its spec");
  io.on_progress = ProgressHandler{dir, node, sandbox, exec_server ? exec_server->get() : nullptr,
                                   publisher};
  // A node keeps its pods: a container waiting for its ConfigMap or Secret is tried again at
  // the kubelet's pace until it exists.
  io.config_retry = options.config_retry;
  // A monitor that finds its pod's status from an earlier monitor (that one was killed, and its
  // containers with it) goes on from there: restart counts, last states and log files continue.
  // The ephemeral containers pod.json has by then are RunPod's too: one that ran stays as it
  // ended (or lost), one that never got to run starts.
  if (auto before = ReadMonitorStatus(dir); before && !before->finished) {
    io.history = kubelet::ContainerHistoryFromStatus(before->status);
  }
  PublishOutcome(node.RunPod(*pod_object, io), publisher);
  return 0;
}

}  // namespace podlimits::nodeagent
