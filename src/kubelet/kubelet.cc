#include "kubelet/kubelet.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

#include "cri/oci_runtime.h"
#include "cri/oci_spec.h"
#include "cri/runtime_mount_namespace.h"
#include "kubelet/cm/managed_controllers.h"
#include "kubelet/cm/node_allocatable.h"
#include "kubelet/cm/node_resources.h"
#include "kubelet/lifecycle/field_coverage.h"
#include "kubelet/lifecycle/node_admission.h"
#include "kubelet/podworker/pod_claim.h"
#include "kubelet/podworker/stale_pods.h"
#include "kubelet/sysctl/sysctl_allowlist.h"

namespace podlimits::kubelet {
namespace {

std::unexpected<Error> NodeFailure(Error error) {
  return std::unexpected(std::move(error).Because(kNodeFailure));
}

PodOutcome NotRun(PodOutcome::Kind kind, std::string reason, std::string status_message,
                  std::string error) {
  PodOutcome out;
  out.kind = kind;
  out.reason = std::move(reason);
  out.status_message = std::move(status_message);
  out.error = std::move(error);
  return out;
}

// Node admission refused the pod: the Warning event, and the outcome `run` prints.
PodOutcome Rejected(EventRecorder& events, const api::Pod& pod, std::string_view reason,
                    const std::string& message) {
  events.Eventf(EventType::kWarning, reason, message);
  return NotRun(PodOutcome::Kind::kRejected, std::string(reason), "Pod was rejected: " + message,
                fmt::format("pod \"{}\" rejected by the node: {}", pod.metadata.name, message));
}

PodOutcome NodeFailed(const std::string& message) {
  return NotRun(PodOutcome::Kind::kNodeFailure, std::string(kNodeFailure), message, message);
}

}  // namespace

Kubelet::Kubelet(KubeletOptions options) : options_(std::move(options)) {}

Kubelet::~Kubelet() = default;

Result<void> Kubelet::Probe() {
  if (probed_) return {};
  ProbeOptions probe;
  probe.path_env = options_.path_env;
  probe.runtime_version = options_.runtime_version;
  caps_ = ProbeNodeCapabilities(options_.config, probe);
  if (caps_.cgroup_mode) {
    if (auto ok = ValidateManagedControllers(options_.config, *caps_.cgroup_mode); !ok) {
      return std::unexpected(std::move(ok.error()).Because(kInvalidNodeConfiguration));
    }
  }
  pid_capacity_ = ReadPidCapacity();
  // A kubelet with reservations above its capacity does not start: neither does this node.
  if (auto ok = ValidateNodeAllocatable(pid_capacity_.Capacity(), options_.config); !ok) {
    return NodeFailure(std::move(ok.error()));
  }
  features_ = DeclareFeatures(options_.config.feature_gates, caps_);
  probed_ = true;
  return {};
}

Result<void> Kubelet::Start() {
  if (started_) return {};
  if (geteuid() != 0) {
    return NodeFailure(
        Failure("podlimits run needs root: it creates cgroups, mounts the container's "
                "root filesystem and runs the OCI runtime")
            .error());
  }
  if (auto ok = Probe(); !ok) return ok;
  if (!caps_.runtime.Found()) return NodeFailure(Failure(caps_.runtime.error).error());
  if (!caps_.runtime.unusable.empty()) return NodeFailure(Failure(caps_.runtime.unusable).error());
  // Every pod's sandbox runs it: without it no pod could share its namespaces.
  if (access(options_.config.sandbox_holder.c_str(), X_OK) != 0) {
    return NodeFailure(SystemError("find the pod sandbox's holder", options_.config.sandbox_holder,
                                   errno, "install Debian's catatonit or set sandboxHolder")
                           .error());
  }

  // Container processes are re-parented to us when the runtime that forked them exits, so that
  // their exit status is ours to collect (base/child_reaper.h).
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    return NodeFailure(SystemError("prctl(PR_SET_CHILD_SUBREAPER)", {}, errno).error());
  }
  // A node whose cgroups podlimits cannot manage still answers node admission with the
  // kubelet's own words (a pod PID limit on cgroup v1, say); the error comes with the first pod
  // node admission lets through.
  cgroups_ready_ = PrepareCgroups();

  const std::filesystem::path state_dir = options_.config.state_directory;
  const auto kind =
      caps_.runtime.name == "runc" ? cri::RuntimeKind::kRunc : cri::RuntimeKind::kCrun;
  runtime_ = std::make_unique<cri::OciRuntimeClient>(kind, caps_.runtime.path,
                                                     state_dir / "runtime" / caps_.runtime.name);
  images_ = std::make_unique<image::ImageStore>(
      options_.image_root.empty() ? std::filesystem::path(image::ImageStore::kDefaultRoot)
                                  : options_.image_root);
  host_capabilities_ = cri::BoundingCapabilities();
  if (options_.config.pod_network.mode == PodNetworkMode::kCni) {
    network_ = std::make_unique<PodNetwork>(options_.config.pod_network, options_.config.pod_cidr,
                                            state_dir);
    // The first start writes the default network; a broken or incomplete one stops the node
    // here rather than failing every pod (the kubelet's NetworkPluginNotReady).
    if (auto network = network_->Network(); !network) {
      return NodeFailure(std::move(network.error()).Wrap("pod network (podNetwork cni)"));
    }
  }
  started_ = true;
  return {};
}

Result<void> Kubelet::PlanAppArmor(PodPlan& plan) {
  bool wants_default = false;
  for (auto* list : {&plan.init_containers, &plan.containers}) {
    for (ContainerPlan& c : *list) {
      c.apparmor_profile = cri::ContainerAppArmorProfile(plan.pod, c.container, caps_.apparmor);
      wants_default |= c.apparmor_profile == cri::kDefaultAppArmorProfileName;
    }
  }
  if (!wants_default) return {};
  // Loaded once per node, by whichever pod needs it first.
  std::lock_guard lock(apparmor_mu_);
  return cri::EnsureDefaultAppArmorProfile(
      caps_.apparmor, std::filesystem::path(options_.config.state_directory) / "apparmor");
}

Result<void> Kubelet::PrepareCgroups() {
  auto layout = cgroups::DetectLayout();
  if (!layout) return std::unexpected(std::move(layout.error()));
  auto managed = cgroups::ManagedHierarchies(*layout, options_.config.managed_controllers);
  if (!managed) return std::unexpected(std::move(managed.error()));
  // Also where a dead run's leftovers are cleaned up: the runtime must not see hierarchies it
  // may not touch then either.
  if (auto ns = cri::EnterRuntimeMountNamespace(*managed); !ns) return ns;
  layout_ = std::move(*layout);
  return {};
}

PodRunEnvironment Kubelet::PodEnvironment(std::vector<cgroups::ManagedHierarchy> hierarchies,
                                          EventRecorder& events, const PodRunIo& io) {
  const NodeConfig& config = options_.config;
  return PodRunEnvironment{
      .runtime = runtime_.get(),
      .snapshotter = &snapshotter_,
      .images = images_.get(),
      .hierarchies = std::move(hierarchies),
      .state_dir = config.state_directory,
      .host_capabilities = host_capabilities_,
      .seccomp = config.seccomp,
      .sandbox_holder = config.sandbox_holder,
      .start_holder = cri::StartNamespaceHolder,
      .network = network_.get(),
      .node_ip = options_.node_ip,
      .events = &events,
      .metrics = &metrics_,
      .output = io.output,
      .stop = io.stop,
      .spec_updates = io.spec_updates,
      .objects = io.objects,
      .allocatable = NodeAllocatable(config),
      .backoff = {},
      .on_progress = io.on_progress,
      .config_retry = io.config_retry,
      .history = io.history,
      .ephemeral_containers = {},  // RunPod's, from the pod
  };
}

PodOutcome Kubelet::RunPod(const api::PodObject& pod_object, const PodRunIo& io) {
  if (!started_) return NodeFailed("the node is not started (Kubelet::Start)");
  EventRecorder& events = *io.events;
  const api::Pod& pod = pod_object.pod;
  // The pod as it was first admitted: without ephemeral containers (the API refuses them on
  // create). One that has them is a pod a new worker takes over; they are planned as the update
  // that added them was (PlanSpecUpdate), so one the node refuses fails alone, not the pod.
  // Copied only then: a pod's first run (every `podlimits run`) admits the pod as it is.
  std::optional<api::Pod> without_ephemeral;
  if (!pod.spec.ephemeral_containers.empty()) {
    without_ephemeral = pod;
    without_ephemeral->spec.ephemeral_containers.clear();
  }
  const api::Pod& admitted_pod = without_ephemeral ? *without_ephemeral : pod;

  // Node admission: before anything is created. First every field this node would not apply,
  // then the declared features and rlimit ceilings.
  FieldCoverageOptions coverage_options;
  coverage_options.warn_on_unenforced_resources = options_.config.warn_on_unenforced_resources;
  if (caps_.cpu_controller) coverage_options.enforced_resources.push_back("cpu");
  if (caps_.memory_controller) coverage_options.enforced_resources.push_back("memory");
  if (pod.spec.host_network) {
    coverage_options.host_ports = true;
  } else if (network_ && !PodPortMappings(pod).empty()) {
    auto network = network_->Network();
    coverage_options.host_ports = network && network->PortMappings();
  }
  const std::string& node_ip = options_.node_ip;
  if ((network_ && !pod.spec.host_network) || (pod.spec.host_network && !node_ip.empty())) {
    coverage_options.status_field_paths = {"status.podIP", "status.podIPs"};
  }
  if (!node_ip.empty()) {
    coverage_options.status_field_paths.push_back("status.hostIP");
    coverage_options.status_field_paths.push_back("status.hostIPs");
  }
  FieldCoverageResult coverage = CheckFieldCoverage(pod_object.tree, coverage_options);
  if (coverage.refused) {
    return Rejected(events, pod, kReasonUnsupportedPodField, coverage.refused->message);
  }
  for (std::string& message : coverage.unenforced) {
    events.Eventf(EventType::kWarning, kReasonResourceNotEnforced, std::move(message));
  }
  // The kubelet's sysctl admission.
  if (auto forbidden = ForbiddenSysctl(pod, options_.config.allowed_unsafe_sysctls)) {
    return Rejected(events, pod, kReasonSysctlForbidden, "forbidden sysctl: " + *forbidden);
  }
  // The kubelet's AppArmor admission (and what containerd or crun would only find out later).
  std::optional<std::string> apparmor_problem;
  {
    std::lock_guard lock(apparmor_mu_);
    apparmor_problem = cri::AppArmorAdmissionProblem(admitted_pod, caps_.apparmor);
  }
  if (apparmor_problem) {
    return Rejected(events, pod, "AppArmor", "Cannot enforce AppArmor: " + *apparmor_problem);
  }
  AdmitResult admit = AdmitPod(admitted_pod, features_, caps_);
  if (!admit.admitted) return Rejected(events, pod, admit.reason, admit.message);
  if (!cgroups_ready_) return NodeFailed(cgroups_ready_.error().Message());
  for (const auto& e : admit.events) events.Record(e);
  const NodeConfig& config = options_.config;
  PodOutcome outcome;
  outcome.plan = PlanPod(pod, config, admit, config.feature_gates, pid_capacity_.Capacity(),
                         caps_.cpu_controller && caps_.memory_controller);
  // What the sandbox's configuration needs from the node (generatePodSandboxConfig): the
  // kubelet fails the sandbox when this fails; here nothing has been created yet.
  auto names = MakePodNameResolution(pod, config.dns, {}, outcome.plan->PodDescription());
  if (!names) {
    PodOutcome failed = Rejected(events, pod, "FailedCreatePodSandBox",
                                 "Failed to create pod sandbox: " + names.error().Message());
    failed.plan = std::move(outcome.plan);
    return failed;
  }
  outcome.plan->sandbox_events = std::move(names->events);
  outcome.plan->hostnames = std::move(names->names);
  outcome.plan->etc_files = std::move(names->files);
  if (auto loaded = PlanAppArmor(*outcome.plan); !loaded) {
    PodOutcome failed = NodeFailed(loaded.error().Message());
    failed.plan = std::move(outcome.plan);
    return failed;
  }
  const PodPlan& plan = *outcome.plan;

  // The uid is this run's alone from here on. A live run holding it is never touched: this one
  // refuses, having created nothing.
  const std::filesystem::path state_dir = config.state_directory;
  // A few seconds of patience: another run's stale-pod cleanup takes each unheld lock for a moment.
  auto claim = PodClaim::Acquire(state_dir / "pods", plan.uid, std::chrono::seconds(5));
  if (!claim) {
    PodOutcome failed;
    if (!claim.error().Is(kPodUIDInUse)) {
      failed = NodeFailed(claim.error().Message());
    } else {
      const std::string message =
          fmt::format("{}; its containers, cgroups and state in \"{}\" are left alone",
                      claim.error().Message(), plan.pod_dir.string());
      failed = Rejected(events, pod, kPodUIDInUse, message);
    }
    failed.plan = std::move(outcome.plan);
    return failed;
  }
  // Leftovers of runs that died (SIGKILL): this pod's own uid first, then any other whose owner
  // is gone. Pods of live runs are never touched.
  StalePodEnvironment stale;
  stale.state_dir = state_dir;
  for (const auto& d : config.pod_network.bin_dirs) stale.cni_bin_dirs.emplace_back(d);
  stale.hierarchies = [&]() {
    auto fresh = cgroups::ManagedHierarchies(*layout_, config.managed_controllers);
    return fresh ? std::move(*fresh) : std::vector<cgroups::ManagedHierarchy>{};
  };
  if (claim->leftovers()) {
    StalePodCleanup cleanup = CleanUpStalePod(*claim, stale);
    events.Record(cleanup.ToEvent());
    if (!cleanup.ok()) {
      PodOutcome failed = NodeFailed(
          fmt::format("the state a dead run left for pod uid \"{}\" could not be cleaned up: {}",
                      plan.uid, fmt::join(cleanup.errors, "; ")));
      failed.plan = std::move(outcome.plan);
      return failed;
    }
  }
  for (const auto& cleanup : CleanUpStalePods(stale, plan.uid)) events.Record(cleanup.ToEvent());

  auto hierarchies = cgroups::ManagedHierarchies(*layout_, config.managed_controllers);
  if (!hierarchies) {
    PodOutcome failed = NodeFailed(hierarchies.error().Message());
    failed.plan = std::move(outcome.plan);
    return failed;
  }
  PodRunEnvironment env = PodEnvironment(std::move(*hierarchies), events, io);
  if (!pod.spec.ephemeral_containers.empty()) {
    env.ephemeral_containers = PlanSpecUpdate(pod).ephemeral_containers;
  }
  outcome.result = kubelet::RunPod(plan, env);
  claim->Release();
  return outcome;
}

PodSpecUpdate Kubelet::PlanSpecUpdate(const api::Pod& pod) {
  PodSpecUpdate update = SpecUpdateOf(pod);
  // The pod was admitted without its ephemeral containers: admitted again with them, the grant
  // of each is what its own securityContext.ulimits and the node's defaults make of it.
  const AdmitResult admit = AdmitPod(pod, features_, caps_);
  for (const api::Container& c : pod.spec.ephemeral_containers) {
    EphemeralContainerPlan e{PlanContainer(c, admit), ""};
    if (!admit.admitted) e.refused = admit.message;
    // Confined as the pod's other containers are (PlanAppArmor).
    e.plan.apparmor_profile = cri::ContainerAppArmorProfile(pod, c, caps_.apparmor);
    if (e.refused.empty() && e.plan.apparmor_profile == cri::kDefaultAppArmorProfileName) {
      std::lock_guard lock(apparmor_mu_);
      auto loaded = cri::EnsureDefaultAppArmorProfile(
          caps_.apparmor, std::filesystem::path(options_.config.state_directory) / "apparmor");
      if (!loaded) e.refused = "Cannot enforce AppArmor: " + loaded.error().Message();
    }
    update.ephemeral_containers.push_back(std::move(e));
  }
  return update;
}

}  // namespace podlimits::kubelet
