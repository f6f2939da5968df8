#include "cli/run_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "admission/chain.h"
#include "api/decode.h"
#include "api/json_codec.h"
#include "cgroups/detect.h"
#include "cgroups/hierarchies.h"
#include "cli/input.h"
#include "cli/name_seed.h"
#include "cli/report.h"
#include "node/declared_features.h"
#include "node/events.h"
#include "node/metrics.h"
#include "node/node_admission.h"
#include "node/node_capabilities.h"
#include "node/node_config.h"
#include "node/pid_capacity.h"
#include "runtime/image_store.h"
#include "runtime/oci_runtime.h"
#include "runtime/oci_spec.h"
#include "runtime/pod_plan.h"
#include "runtime/pod_runner.h"
#include "runtime/pod_status.h"
#include "runtime/runtime_mount_namespace.h"

namespace podlimits::cli {
namespace {

constexpr int kExitRejected = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNodeFailure = 3;

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return code;
}

void PrintEvent(const node::Event& e) {
  std::string line = node::FormatEventLine(e) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

// The one pod of the input, admitted; nullopt (after printing why) when there is none.
std::optional<api::Pod> AdmitInput(const RunFlags& flags, const validation::FeatureGates& gates,
                                   int& exit_code) {
  auto inputs = ReadInputs(flags.files);
  if (!inputs) {
    exit_code = Fail(kExitUsage, inputs.error());
    return std::nullopt;
  }
  api::DecodeOptions decode_options;
  if (flags.validate_mode == "warn") decode_options.field_validation = api::FieldValidation::kWarn;
  if (flags.validate_mode == "ignore") {
    decode_options.field_validation = api::FieldValidation::kIgnore;
  }
  std::vector<api::DecodeResult> decoded;
  for (const auto& in : *inputs) {
    for (auto& r : api::DecodeManifests(in.name, in.text, decode_options))
      decoded.push_back(std::move(r));
  }
  auto name_generator = NameGeneratorFromEnvironment();
  if (!name_generator) {
    exit_code = Fail(kExitUsage, name_generator.error());
    return std::nullopt;
  }
  admission::ChainOptions options;
  options.gates = gates;
  options.username = "kubernetes-admin";
  options.name_generator = name_generator->get();
  auto outcomes = admission::RunChain(std::move(decoded), options);
  if (Report(outcomes, OutputFormat::kNone) != 0) {
    exit_code = kExitRejected;
    return std::nullopt;
  }
  std::vector<const admission::Outcome*> pods;
  for (const auto& o : outcomes) {
    if (o.kind == "Pod") pods.push_back(&o);
  }
  if (pods.size() != 1) {
    exit_code =
        Fail(kExitUsage, fmt::format("run takes exactly one Pod; the input has {}", pods.size()));
    return std::nullopt;
  }
  return api::ReadPod(pods[0]->object);
}

// SIGINT/SIGTERM/SIGCHLD arrive through a signalfd from here on, also while the runtime runs;
// children start with the mask cleared (the runtime client resets it after fork).
int BlockSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) return -1;
  return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

// runc 1.1 on cgroup v1 writes the container's device rules into the devices hierarchy and
// refuses to start without it ("mountpoint for devices not found"); podlimits shows the runtime
// only the hierarchies it manages, so runc needs "devices" among them there. Said before anything
// is created, instead of runc's message after.
std::optional<std::string> RuntimeUnusable(const std::string& runtime,
                                           const cgroups::CgroupLayout& layout,
                                           const std::vector<std::string>& managed) {
  if (runtime != "runc" || layout.mode == cgroups::CgroupMode::kV2) return std::nullopt;
  for (const auto& c : managed) {
    if (c == "devices") return std::nullopt;
  }
  return fmt::format(
      "runc on a cgroup v1 node needs the devices hierarchy, which podlimits does not manage "
      "here (managedControllers: [{}]): add \"devices\" to managedControllers in the "
      "NodeConfiguration, or use crun",
      fmt::join(managed, ", "));
}

runtime::RuntimeKind KindOf(const std::string& name) {
  return name == "runc" ? runtime::RuntimeKind::kRunc : runtime::RuntimeKind::kCrun;
}

}  // namespace

int RunCommand(const RunFlags& flags) {
  if (flags.validate_mode != "strict" && flags.validate_mode != "warn" &&
      flags.validate_mode != "ignore") {
    return Fail(kExitUsage,
                fmt::format("invalid --validate value \"{}\": must be strict, warn or ignore",
                            flags.validate_mode));
  }
  auto config = flags.node_config.empty() ? node::DefaultNodeConfig()
                                          : node::LoadNodeConfig(flags.node_config);
  if (!config) return Fail(kExitUsage, config.error());
  const validation::FeatureGates& gates = config->feature_gates;

  int exit_code = 0;
  auto pod = AdmitInput(flags, gates, exit_code);
  if (!pod) return exit_code;

  if (geteuid() != 0) {
    return Fail(kExitNodeFailure,
                "podlimits run needs root: it creates cgroups, mounts the container's root "
                "filesystem and runs the OCI runtime");
  }

  // Node admission: before anything is created.
  node::ProbeOptions probe;
  const char* path = std::getenv("PATH");
  probe.path_env = path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  node::NodeCapabilities caps = node::ProbeNodeCapabilities(*config, probe);
  node::DeclaredFeatures features = node::DeclareFeatures(gates, caps);
  node::AdmitResult admit = node::AdmitPod(*pod, features, caps);
  if (!admit.admitted) {
    PrintEvent(admit.RejectionEvent());
    std::fprintf(stderr, "error: pod \"%s\" rejected by the node: %s\n", pod->metadata.name.c_str(),
                 admit.message.c_str());
    return kExitRejected;
  }
  if (!caps.runtime.Found()) return Fail(kExitNodeFailure, caps.runtime.error);

  auto layout = cgroups::DetectLayout();
  if (!layout) return Fail(kExitNodeFailure, layout.error().Message());
  auto managed = cgroups::ManagedHierarchies(*layout, config->managed_controllers);
  if (!managed) return Fail(kExitNodeFailure, managed.error().Message());
  if (auto why = RuntimeUnusable(caps.runtime.name, *layout, config->managed_controllers)) {
    return Fail(kExitNodeFailure, *why);
  }

  int signal_fd = BlockSignals();
  if (signal_fd < 0)
    return Fail(kExitNodeFailure, fmt::format("signalfd: {}", std::strerror(errno)));
  // Container processes are re-parented to us when the runtime that forked them exits, so that
  // their exit status is ours to collect.
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    return Fail(kExitNodeFailure,
                fmt::format("prctl(PR_SET_CHILD_SUBREAPER): {}", std::strerror(errno)));
  }
  if (auto ns = runtime::EnterRuntimeMountNamespace(*managed); !ns) {
    return Fail(kExitNodeFailure, ns.error());
  }

  node::EventRecorder events(PrintEvent);
  for (const auto& e : admit.events) events.Record(e);
  node::MetricsRegistry metrics;
  runtime::PodPlan plan =
      runtime::PlanPod(*pod, *config, admit, gates, node::ReadPidCapacity().Capacity());

  runtime::ImageStore images(flags.image_root.empty() ? runtime::ImageStore::kDefaultRoot
                                                      : flags.image_root);
  runtime::OciRuntimeClient client(
      KindOf(caps.runtime.name), caps.runtime.path,
      std::filesystem::path(config->state_directory) / "runtime" / caps.runtime.name);
  runtime::PodRunEnvironment env;
  env.runtime = &client;
  env.images = &images;
  env.hierarchies = std::move(*managed);
  env.host_capabilities = runtime::BoundingCapabilities();
  env.events = &events;
  env.metrics = &metrics;
  env.output_fd = flags.output == "json" ? STDERR_FILENO : STDOUT_FILENO;
  env.signal_fd = signal_fd;
  runtime::PodRunResult result = runtime::RunPod(plan, env);
  close(signal_fd);

  for (const auto& e : result.teardown_errors) {
    std::fprintf(stderr, "error: teardown: %s\n", e.c_str());
  }
  if (flags.output == "json") {
    std::string json =
        api::EncodeJson(runtime::PodRunStatusTree(plan, result, events.Events(), metrics), 4) +
        "\n";
    std::fwrite(json.data(), 1, json.size(), stdout);
  } else {
    std::fprintf(stderr, "pod %s/%s %s\n", plan.pod.metadata.namespace_.c_str(),
                 plan.pod.metadata.name.c_str(), result.phase.c_str());
  }
  std::fflush(stdout);
  if (result.node_failure || !result.teardown_errors.empty()) return kExitNodeFailure;
  return result.phase == "Succeeded" ? 0 : kExitRejected;
}

}  // namespace podlimits::cli
