#include "cli/run_command.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "api/qos.h"
#include "base/fs.h"
#include "cli/exit_codes.h"
#include "cli/flags.h"
#include "cli/node_config_flag.h"
#include "cli/path_env.h"
#include "cli/run_input.h"
#include "codec/json_codec.h"
#include "cri/container_output.h"
#include "kubelet/config/node_config.h"
#include "kubelet/events/events.h"
#include "kubelet/kubelet.h"
#include "kubelet/podworker/stop_signals.h"
#include "kubelet/status/pod_status.h"
#include "nodeagent/cgroup_root_claim.h"

namespace podlimits::cli {
namespace {

void PrintEvent(const kubelet::Event& e) {
  std::string line = kubelet::FormatEventLine(e) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}


// How `run` ends once the pod is known: the error line, and with -o json the status object
// (every outcome once the pod was decoded ends with one).
class RunOutcome {
 public:
  explicit RunOutcome(bool json) : json_(json) {}

  kubelet::EventRecorder& events() { return events_; }
  void set_pod(kubelet::RejectedPod pod) { pod_ = std::move(pod); }

  // The pod did not run: prints `error: MESSAGE` and, with -o json, a Failed status.
  int NotRun(int code, const std::string& reason, const std::string& status_message,
             const std::string& error, kubelet::MetricsRegistry& metrics) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    if (json_ && pod_) {
      kubelet::RejectedPod pod = *pod_;
      pod.reason = reason;
      pod.message = status_message;
      Print(kubelet::RejectedPodStatusTree(pod, events_.Events(), metrics));
    }
    return code;
  }

  void Print(const codec::Node& status) {
    if (!json_) return;
    std::string text = codec::EncodeJson(status, 4) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }

 private:
  bool json_;
  kubelet::EventRecorder events_{PrintEvent};
  std::optional<kubelet::RejectedPod> pod_;
};

// The node ready for the pod, or the exit code of why not (printed through `outcome`).
std::optional<int> StartNode(kubelet::Kubelet& node, RunOutcome& outcome) {
  // One node per cgroup root (nodeagent/cgroup_root_claim.h): a one-shot pod in a serving node's
  // root would rewrite that node's kubepods pids.max. Checked before anything is created.
  if (auto unclaimed = nodeagent::CheckCgroupRootUnclaimed(nodeagent::kCgroupRootClaimsDir,
                                                           node.config().cgroup_root);
      !unclaimed) {
    const std::string message = unclaimed.error().Message();
    return outcome.NotRun(kExitNodeFailure, "NodeFailure", message, message, node.metrics());
  }
  if (auto started = node.Start(); !started) {
    const Error& e = started.error();
    const std::string message = e.Message();
    return outcome.NotRun(e.Is(kubelet::kInvalidNodeConfiguration) ? kExitUsage : kExitNodeFailure,
                          e.reason, message, message, node.metrics());
  }
  return std::nullopt;
}

// How the pod ended: its lines and status printed, the exit code returned.
int ReportRan(const kubelet::PodOutcome& ran, RunOutcome& outcome, kubelet::Kubelet& node,
              bool json) {
  switch (ran.kind) {
    case kubelet::PodOutcome::Kind::kRejected:
      return outcome.NotRun(kExitRejected, ran.reason, ran.status_message, ran.error,
                            node.metrics());
    case kubelet::PodOutcome::Kind::kNodeFailure:
      return outcome.NotRun(kExitNodeFailure, ran.reason, ran.status_message, ran.error,
                            node.metrics());
    case kubelet::PodOutcome::Kind::kRan:
      break;
  }
  const kubelet::PodPlan& plan = *ran.plan;
  const kubelet::PodRunResult& result = ran.result;
  for (const auto& e : result.teardown_errors) {
    std::fprintf(stderr, "error: teardown: %s\n", e.c_str());
  }
  if (json) {
    outcome.Print(
        kubelet::PodRunStatusTree(plan, result, outcome.events().Events(), node.metrics()));
  } else {
    std::fprintf(stderr, "pod %s/%s %s\n", plan.pod.metadata.namespace_.c_str(),
                 plan.pod.metadata.name.c_str(), result.phase.c_str());
  }
  if (result.node_failure || !result.teardown_errors.empty()) return kExitNodeFailure;
  return result.phase == "Succeeded" ? kExitOk : kExitRejected;
}

int RunCommand(const RunFlags& flags) {
  auto config = LoadNodeConfigOrDefault(flags.node_config);
  if (!config) {
    std::fprintf(stderr, "error: %s\n", config.error().Message().c_str());
    return kExitUsage;
  }
  const validation::FeatureGates gates = config->config.feature_gates;
  const bool json = flags.output == "json";

  RunOutcome outcome(json);
  kubelet::Kubelet node({std::move(config->config), flags.image_root, PathEnv()});
  RunInput input = AdmitRunInput(flags, gates);
  if (!input.pod) {
    if (input.rejected) {
      outcome.Print(kubelet::RejectedPodStatusTree(*input.rejected, {}, node.metrics()));
    }
    return input.exit_code;
  }
  const api::Pod& pod = input.pod->pod;
  outcome.set_pod({pod.metadata.name, pod.metadata.namespace_, pod.metadata.uid,
                   std::string(api::Name(api::ComputePodQos(pod, gates.pod_level_resources))), "",
                   ""});
  if (auto failed = StartNode(node, outcome)) return *failed;

  kubelet::PodStop stop;
  // SIGINT, SIGTERM, SIGHUP (the terminal went away) and SIGPIPE (whoever reads our output went
  // away) each stop the pod; a write to a closed stdout fails with EPIPE instead of killing us.
  kubelet::StopSignals signals(stop, {SIGHUP, SIGINT, SIGTERM, SIGPIPE});
  if (!signals.ok()) {
    const std::string message = "signalfd: cannot watch the stop signals";
    return outcome.NotRun(kExitNodeFailure, "NodeFailure", message, message, node.metrics());
  }
  cri::PrefixedOutput output(json ? STDERR_FILENO : STDOUT_FILENO);
  kubelet::PodOutcome ran =
      node.RunPod(*input.pod, {&outcome.events(), &output, &stop, &input.objects, {}, {}, {}});
  if (ran.plan) {
    outcome.set_pod({pod.metadata.name, pod.metadata.namespace_, ran.plan->uid,
                     std::string(api::Name(ran.plan->qos)), "", ""});
  }
  return ReportRan(ran, outcome, node, json);
}

}  // namespace

void AddRunCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* run = app.add_subcommand(
      "run", "Admit a pod and run it on this node with its limits enforced by the kernel");
  run->add_option("-f,--filename", flags->files,
                  "The pod (with its Namespace and LimitRanges, if any); files or -")
      ->required();
  AddNodeConfigFlag(run, flags->node_config);
  AddOutputFlag(run, flags->output, {"json"}, "json: end with a PodRunStatus object");
  AddValidateFlag(run, flags->validate_mode);
  run->add_option("--image-root", flags->image_root,
                  "The image store (default /var/lib/podlimits/images)");
  run->callback([flags, &exit_code] { exit_code = RunCommand(*flags); });
}

}  // namespace podlimits::cli
