#include "cli/run_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "api/json_codec.h"
#include "cgroups/detect.h"
#include "cgroups/hierarchies.h"
#include "cgroups/qos.h"
#include "cli/run_input.h"
#include "cri/oci_runtime.h"
#include "cri/oci_spec.h"
#include "cri/runtime_mount_namespace.h"
#include "image/store.h"
#include "kubelet/declared_features.h"
#include "kubelet/events.h"
#include "kubelet/managed_controllers.h"
#include "kubelet/metrics.h"
#include "kubelet/node_admission.h"
#include "kubelet/node_allocatable.h"
#include "kubelet/node_capabilities.h"
#include "kubelet/node_config.h"
#include "kubelet/pid_capacity.h"
#include "kubelet/pod_claim.h"
#include "kubelet/pod_plan.h"
#include "kubelet/pod_runner.h"
#include "kubelet/pod_status.h"
#include "kubelet/stale_pods.h"

namespace podlimits::cli {
namespace {

namespace fs = std::filesystem;

constexpr int kExitRejected = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNodeFailure = 3;

void PrintEvent(const kubelet::Event& e) {
  std::string line = kubelet::FormatEventLine(e) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

// SIGINT, SIGTERM, SIGHUP (the terminal went away) and SIGPIPE (whoever reads our output went
// away) all stop the pod gracefully; SIGCHLD reports container exits. They arrive through a
// signalfd from here on, also while the runtime runs and during teardown, so none of them can
// kill podlimits half-way; a write to a closed stdout fails with EPIPE instead. Children start
// with the mask cleared and default dispositions (the runtime client resets both after fork).
int BlockSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD}) sigaddset(&set, sig);
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) return -1;
  return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

cri::RuntimeKind KindOf(const std::string& name) {
  return name == "runc" ? cri::RuntimeKind::kRunc : cri::RuntimeKind::kCrun;
}

// How `run` ends once the pod is known: the error line, and with -o json the status object
// (every outcome once the pod was decoded ends with one).
class RunOutcome {
 public:
  explicit RunOutcome(bool json) : json_(json) {}

  kubelet::EventRecorder& events() { return events_; }
  kubelet::MetricsRegistry& metrics() { return metrics_; }
  void set_pod(kubelet::RejectedPod pod) { pod_ = std::move(pod); }

  // The pod did not run: prints `error: MESSAGE` and, with -o json, a Failed status.
  int NotRun(int code, const std::string& reason, const std::string& status_message,
             const std::string& error) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    if (json_ && pod_) {
      kubelet::RejectedPod pod = *pod_;
      pod.reason = reason;
      pod.message = status_message;
      Print(kubelet::RejectedPodStatusTree(pod, events_.Events(), metrics_));
    }
    return code;
  }

  void Print(const api::Node& status) {
    if (!json_) return;
    std::string text = api::EncodeJson(status, 4) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }

 private:
  bool json_;
  kubelet::EventRecorder events_{PrintEvent};
  kubelet::MetricsRegistry metrics_;
  std::optional<kubelet::RejectedPod> pod_;
};

}  // namespace

int RunCommand(const RunFlags& flags) {
  if (flags.validate_mode != "strict" && flags.validate_mode != "warn" &&
      flags.validate_mode != "ignore") {
    std::fprintf(stderr, "error: invalid --validate value \"%s\": must be strict, warn or ignore\n",
                 flags.validate_mode.c_str());
    return kExitUsage;
  }
  auto config = flags.node_config.empty() ? kubelet::DefaultNodeConfig()
                                          : kubelet::LoadNodeConfig(flags.node_config);
  if (!config) {
    std::fprintf(stderr, "error: %s\n", config.error().Message().c_str());
    return kExitUsage;
  }
  const validation::FeatureGates& gates = config->feature_gates;
  const bool json = flags.output == "json";

  RunOutcome outcome(json);
  RunInput input = AdmitRunInput(flags, gates);
  if (!input.pod) {
    if (input.rejected) {
      outcome.Print(kubelet::RejectedPodStatusTree(*input.rejected, {}, outcome.metrics()));
    }
    return input.exit_code;
  }
  const api::Pod& pod = *input.pod;
  outcome.set_pod(
      {pod.metadata.name, pod.metadata.namespace_, pod.metadata.uid,
       std::string(cgroups::Name(cgroups::ComputePodQos(pod, gates.pod_level_resources))), "", ""});
  auto node_failure = [&](const std::string& message) {
    return outcome.NotRun(kExitNodeFailure, "NodeFailure", message, message);
  };

  if (geteuid() != 0) {
    return node_failure(
        "podlimits run needs root: it creates cgroups, mounts the container's root filesystem "
        "and runs the OCI runtime");
  }

  // The node, as a kubelet checks it at start: before anything is created.
  kubelet::ProbeOptions probe;
  const char* path = std::getenv("PATH");
  probe.path_env = path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  kubelet::NodeCapabilities caps = kubelet::ProbeNodeCapabilities(*config, probe);
  if (caps.cgroup_mode) {
    if (auto ok = kubelet::ValidateManagedControllers(*config, *caps.cgroup_mode); !ok) {
      return outcome.NotRun(kExitUsage, "InvalidNodeConfiguration", ok.error().Message(),
                            ok.error().Message());
    }
  }
  const std::optional<std::int64_t> pid_capacity = kubelet::ReadPidCapacity().Capacity();
  if (auto ok = kubelet::ValidateNodeAllocatable(pid_capacity, *config); !ok) {
    return node_failure(ok.error().Message());
  }
  if (!caps.runtime.Found()) return node_failure(caps.runtime.error);
  if (!caps.runtime.unusable.empty()) return node_failure(caps.runtime.unusable);

  // Node admission: before anything is created.
  kubelet::DeclaredFeatures features = kubelet::DeclareFeatures(gates, caps);
  kubelet::AdmitResult admit = kubelet::AdmitPod(pod, features, caps);
  if (!admit.admitted) {
    outcome.events().Record(admit.RejectionEvent());
    return outcome.NotRun(
        kExitRejected, admit.reason, "Pod was rejected: " + admit.message,
        fmt::format("pod \"{}\" rejected by the node: {}", pod.metadata.name, admit.message));
  }

  auto layout = cgroups::DetectLayout();
  if (!layout) return node_failure(layout.error().Message());
  auto managed = cgroups::ManagedHierarchies(*layout, config->managed_controllers);
  if (!managed) return node_failure(managed.error().Message());

  int signal_fd = BlockSignals();
  if (signal_fd < 0) return node_failure(fmt::format("signalfd: {}", std::strerror(errno)));
  // Container processes are re-parented to us when the runtime that forked them exits, so that
  // their exit status is ours to collect.
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    return node_failure(fmt::format("prctl(PR_SET_CHILD_SUBREAPER): {}", std::strerror(errno)));
  }
  // Also where a dead run's leftovers are cleaned up: the runtime must not see hierarchies it
  // may not touch then either.
  if (auto ns = cri::EnterRuntimeMountNamespace(*managed); !ns)
    return node_failure(ns.error().Message());

  for (const auto& e : admit.events) outcome.events().Record(e);
  kubelet::PodPlan plan = kubelet::PlanPod(pod, *config, admit, gates, pid_capacity);
  outcome.set_pod({pod.metadata.name, pod.metadata.namespace_, plan.uid,
                   std::string(cgroups::Name(plan.qos)), "", ""});

  // The uid is this run's alone from here on. A live run holding it is never touched: this one
  // refuses, having created nothing.
  const fs::path state_dir = config->state_directory;
  auto claim = kubelet::PodClaim::Acquire(state_dir / "pods", plan.uid);
  if (!claim) {
    if (!claim.error().in_use) return node_failure(claim.error().message);
    const std::string message =
        fmt::format("{}; its containers, cgroups and state in \"{}\" are left alone",
                    claim.error().message, plan.pod_dir.string());
    outcome.events().Eventf(kubelet::EventType::kWarning, "PodUIDInUse", message);
    return outcome.NotRun(
        kExitRejected, "PodUIDInUse", "Pod was rejected: " + message,
        fmt::format("pod \"{}\" rejected by the node: {}", pod.metadata.name, message));
  }
  // Leftovers of runs that died (SIGKILL): this pod's own uid first, then any other whose owner
  // is gone. Pods of live runs are never touched.
  kubelet::StalePodEnvironment stale;
  stale.state_dir = state_dir;
  stale.hierarchies = [&]() {
    auto fresh = cgroups::ManagedHierarchies(*layout, config->managed_controllers);
    return fresh ? std::move(*fresh) : std::vector<cgroups::ManagedHierarchy>{};
  };
  if (claim->leftovers()) {
    kubelet::StalePodCleanup cleanup = kubelet::CleanUpStalePod(*claim, stale);
    outcome.events().Record(cleanup.ToEvent());
    if (!cleanup.ok()) {
      return node_failure(
          fmt::format("the state a dead run left for pod uid \"{}\" could not "
                      "be cleaned up: {}",
                      plan.uid, fmt::join(cleanup.errors, "; ")));
    }
  }
  for (const auto& cleanup : kubelet::CleanUpStalePods(stale, plan.uid)) {
    outcome.events().Record(cleanup.ToEvent());
  }

  image::ImageStore images(flags.image_root.empty() ? image::ImageStore::kDefaultRoot
                                                    : flags.image_root);
  cri::OciRuntimeClient client(KindOf(caps.runtime.name), caps.runtime.path,
                               state_dir / "runtime" / caps.runtime.name);
  kubelet::PodRunEnvironment env;
  env.runtime = &client;
  env.images = &images;
  env.hierarchies = std::move(*managed);
  env.state_dir = state_dir;
  env.host_capabilities = cri::BoundingCapabilities();
  env.events = &outcome.events();
  env.metrics = &outcome.metrics();
  env.output_fd = json ? STDERR_FILENO : STDOUT_FILENO;
  env.signal_fd = signal_fd;
  kubelet::PodRunResult result = kubelet::RunPod(plan, env);
  claim->Release();
  close(signal_fd);

  for (const auto& e : result.teardown_errors) {
    std::fprintf(stderr, "error: teardown: %s\n", e.c_str());
  }
  if (json) {
    outcome.Print(
        kubelet::PodRunStatusTree(plan, result, outcome.events().Events(), outcome.metrics()));
  } else {
    std::fprintf(stderr, "pod %s/%s %s\n", plan.pod.metadata.namespace_.c_str(),
                 plan.pod.metadata.name.c_str(), result.phase.c_str());
  }
  if (result.node_failure || !result.teardown_errors.empty()) return kExitNodeFailure;
  return result.phase == "Succeeded" ? 0 : kExitRejected;
}

}  // namespace podlimits::cli
