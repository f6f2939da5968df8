#include "cli/run_command.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "api/json_codec.h"
#include "api/qos.h"
#include "base/fs.h"
#include "cli/run_input.h"
#include "cri/container_output.h"
#include "kubelet/events/events.h"
#include "kubelet/kubelet.h"
#include "kubelet/config/node_config.h"
#include "kubelet/status/pod_status.h"
#include "kubelet/podworker/stop_signals.h"
#include "nodeagent/cgroup_root_claim.h"

namespace podlimits::cli {
namespace {

constexpr int kExitRejected = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNodeFailure = 3;

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

  void Print(const api::Node& status) {
    if (!json_) return;
    std::string text = api::EncodeJson(status, 4) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }

 private:
  bool json_;
  kubelet::EventRecorder events_{PrintEvent};
  std::optional<kubelet::RejectedPod> pod_;
};

std::string PathEnv() {
  const char* path = std::getenv("PATH");
  return path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
}

}  // namespace

int RunCommand(const RunFlags& flags) {
  auto config = flags.node_config.empty() ? kubelet::DefaultNodeConfig()
                                          : kubelet::LoadNodeConfig(flags.node_config);
  if (!config) {
    std::fprintf(stderr, "error: %s\n", config.error().Message().c_str());
    return kExitUsage;
  }
  const validation::FeatureGates gates = config->feature_gates;
  const bool json = flags.output == "json";

  RunOutcome outcome(json);
  kubelet::KubeletOptions options{std::move(*config), flags.image_root, PathEnv()};
  kubelet::Kubelet node(std::move(options));
  RunInput input = AdmitRunInput(flags, gates);
  if (!input.object) {
    if (input.rejected) {
      outcome.Print(kubelet::RejectedPodStatusTree(*input.rejected, {}, node.metrics()));
    }
    return input.exit_code;
  }
  const api::Pod pod = api::ReadPod(*input.object);
  outcome.set_pod({pod.metadata.name, pod.metadata.namespace_, pod.metadata.uid,
                   std::string(api::Name(api::ComputePodQos(pod, gates.pod_level_resources))), "",
                   ""});

  // One node per cgroup root (nodeagent/cgroup_root_claim.h): a one-shot pod in a serving node's
  // root would rewrite that node's kubepods pids.max. Checked before anything is created.
  if (auto unclaimed = nodeagent::CheckCgroupRootUnclaimed(nodeagent::kCgroupRootClaimsDir,
                                                           node.config().cgroup_root);
      !unclaimed) {
    const std::string message = unclaimed.error().Message();
    return outcome.NotRun(kExitNodeFailure, "NodeFailure", message, message, node.metrics());
  }
  if (auto started = node.Start(); !started) {
    const kubelet::NodeError& e = started.error();
    const std::string message = e.error.Message();
    return outcome.NotRun(
        e.kind == kubelet::NodeError::Kind::kConfiguration ? kExitUsage : kExitNodeFailure,
        e.reason, message, message, node.metrics());
  }

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
      node.RunPod(*input.object, {&outcome.events(), &output, &stop, &input.objects, {}, {}, {}});
  if (ran.plan) {
    outcome.set_pod({pod.metadata.name, pod.metadata.namespace_, ran.plan->uid,
                     std::string(api::Name(ran.plan->qos)), "", ""});
  }
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
  return result.phase == "Succeeded" ? 0 : kExitRejected;
}

}  // namespace podlimits::cli
