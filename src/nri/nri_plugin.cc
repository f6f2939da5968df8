#include "nri/nri_plugin.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cri/process_limits.h"
#include "cgroups/pids.h"
#include "field/field.h"
#include "runcwrap/pod_cgroup_limits.h"
#include "runcwrap/spec_edit.h"

namespace podlimits::nri {
namespace {

using codec::Node;
using runcwrap::BundleRequest;

std::string LimitText(std::uint64_t v) {
  return v == kubelet::kRlimInfinity ? std::string("unlimited") : std::to_string(v);
}

std::string PodName(const PodSandbox& pod) {
  return pod.pod_namespace.empty() ? pod.name : pod.pod_namespace + "/" + pod.name;
}

TtrpcResponse Ok(std::string payload = {}) { return {kCodeOk, {}, std::move(payload)}; }
TtrpcResponse Refused(const Error& e) { return {kCodeFailedPrecondition, e.Message(), {}}; }
TtrpcResponse Malformed(const Error& e) { return {kCodeInvalidArgument, e.Message(), {}}; }

bool HasOwnCgroupNamespace(const Container& c) {
  for (const auto& ns : c.namespaces) {
    if (ns.type == "cgroup") return ns.path.empty();
  }
  return false;
}

// The node as the plugin judges it. Its own limits and capabilities stand for the runtime's
// (docs/nri.md), so a refusal at a ceiling names the plugin, not podlimits-runc.
runcwrap::NodeFacts ProbeAsPlugin(const NriPluginSeams& seams, const BundleRequest& request) {
  runcwrap::NodeFacts node = seams.probe_node(request);
  node.rlimits.rlimit_holder = kubelet::RlimitHolder::kNriPlugin;
  return node;
}

}  // namespace

std::int32_t SubscribedEvents() {
  return EventBit(Event::kRunPodSandbox) | EventBit(Event::kRemovePodSandbox) |
         EventBit(Event::kCreateContainer) | EventBit(Event::kPostStartContainer) |
         EventBit(Event::kRemoveContainer);
}

Mount WritableCgroupMount() {
  return Mount{"/sys/fs/cgroup", "cgroup", "cgroup",
               {"nosuid", "noexec", "nodev", "relatime", "rw"}};
}

Node BundleAnnotations(const PodSandbox& pod, const Container* container) {
  Node a = Node::Object();
  for (const auto& [k, v] : pod.annotations) a.Set(k, Node::String(v));
  if (container != nullptr) {
    for (const auto& [k, v] : container->annotations) {
      if (a.Find(k) == nullptr) a.Set(k, Node::String(v));
    }
  }
  // What containerd's CRI plugin writes into a bundle, from what NRI says the bundle is.
  a.Set("io.kubernetes.cri.container-type",
        Node::String(container == nullptr ? "sandbox" : "container"));
  if (container != nullptr) a.Set("io.kubernetes.cri.container-name", Node::String(container->name));
  a.Set("io.kubernetes.cri.sandbox-name", Node::String(pod.name));
  a.Set("io.kubernetes.cri.sandbox-namespace", Node::String(pod.pod_namespace));
  return a;
}

NriPluginSeams RealNodeSeams() {
  NriPluginSeams seams;
  seams.probe_node = [](const BundleRequest& r) { return runcwrap::ProbeNodeFacts(r); };
  seams.read_back = [](std::uint32_t pid, const std::vector<PosixRlimit>& wanted)
      -> Result<std::vector<std::string>> {
    std::vector<cri::Rlimit> rlimits;
    for (const auto& w : wanted) rlimits.push_back({w.type, w.soft, w.hard});
    auto corrected = cri::CorrectProcessLimits(static_cast<pid_t>(pid), rlimits);
    if (!corrected) return std::unexpected(corrected.error());
    std::vector<std::string> warnings;
    for (const auto& c : *corrected) {
      warnings.push_back(fmt::format("the runtime left {} of pid {} at {}:{}; set to {}:{}",
                                     c.wanted.type, pid, LimitText(c.found_soft),
                                     LimitText(c.found_hard), LimitText(c.wanted.soft),
                                     LimitText(c.wanted.hard)));
    }
    return warnings;
  };
  return seams;
}

NriPlugin::NriPlugin(NriConfig config, NriPluginSeams seams, Log log)
    : config_(std::move(config)), seams_(std::move(seams)), log_(std::move(log)) {}

TtrpcResponse NriPlugin::Handle(const TtrpcRequest& request) {
  if (request.service != kPluginService) {
    // ttrpc's own answer for a service it does not serve (services.go).
    return {kCodeUnimplemented, fmt::format("service {}", request.service), {}};
  }
  const std::string& m = request.method;
  if (m == "Configure") {
    auto req = DecodeConfigureRequest(request.payload);
    if (!req) return Malformed(req.error());
    configured_ = true;
    log_("info", fmt::format("configured by {} {}", req->runtime_name, req->runtime_version));
    return Ok(EncodeConfigureResponse(SubscribedEvents()));
  }
  if (m == "Synchronize") {
    auto req = DecodeSynchronizeRequest(request.payload);
    if (!req) return Malformed(req.error());
    // What already runs keeps the limits it started with; nothing to update. A split request is
    // acknowledged with more = true, as NRI's adaptation requires.
    return Ok(EncodeSynchronizeResponse(req->more));
  }
  if (m == "Shutdown") {
    shutdown_ = true;
    return Ok();
  }
  if (m == "StateChange") return StateChange(request.payload);
  if (m == "CreateContainer") return CreateContainer(request.payload);
  if (m == "UpdateContainer" || m == "StopContainer") {
    auto req = DecodeContainerRequest(request.payload);
    if (!req) return Malformed(req.error());
    return Ok();  // not subscribed; an empty response changes nothing
  }
  return {kCodeUnimplemented, fmt::format("method {}", m), {}};
}

TtrpcResponse NriPlugin::StateChange(std::string_view payload) {
  auto event = DecodeStateChangeEvent(payload);
  if (!event) return Malformed(event.error());
  switch (event->event) {
    case Event::kRunPodSandbox:
      // A refusal is not answered here but at each of the pod's containers, whose
      // CreateContainer decides again from the same annotations and fails with the same message.
      // containerd 2.x starts the sandbox before NRI's RunPodSandbox and does not stop it when a
      // plugin fails that call: its pause process and shim stay, unknown to the CRI (measured
      // with 2.1.9 through tests/cri/run; the kubelet retries the sandbox and leaks one each
      // time). A failed CreateContainer leaves a sandbox the kubelet knows and removes.
      if (auto ok = RunPodSandbox(event->pod); !ok) {
        log_("error", ok.error().Message() + " (its containers are refused)");
      }
      break;
    case Event::kPostStartContainer:
      ReadBack(event->pod, event->container);
      break;
    case Event::kRemoveContainer:
      granted_.erase(event->container.id);
      break;
    case Event::kRemovePodSandbox:
      std::erase_if(granted_, [&](const auto& g) { return g.second.pod_id == event->pod.id; });
      break;
    default: break;
  }
  return Ok();
}

Result<void> NriPlugin::RunPodSandbox(const PodSandbox& pod) {
  Node annotations = BundleAnnotations(pod, nullptr);
  auto request = runcwrap::ReadBundleRequest(&annotations);
  if (!request) return std::unexpected(request.error());
  if (!request->Any()) return {};
  const runcwrap::NodeFacts node = ProbeAsPlugin(seams_, *request);
  auto plan = runcwrap::PlanCreate(*request, runcwrap::PodCgroupLocation{{}, pod.cgroup_parent},
                                   node, config_.limits);
  if (!plan) return std::unexpected(plan.error());
  for (const auto& w : plan->warnings) log_("warning", request->Subject() + ": " + w);
  if (!plan->pod_cgroup) return {};
  auto state = runcwrap::ApplyPodCgroupLimits(node.unified_root, *plan->pod_cgroup,
                                              plan->pod_limits);
  if (!state) return std::unexpected(std::move(state.error()).Wrap(request->Subject()));
  log_("info", fmt::format("{}: pod cgroup {}: pids.max {}, cgroup.max.descendants {}, "
                           "cgroup.max.depth {}",
                           request->Subject(), state->dir.string(), cgroups::FormatMaxValue(state->pids_max),
                           cgroups::FormatMaxValue(state->max_descendants),
                           cgroups::FormatMaxValue(state->max_depth)));
  return {};
}

TtrpcResponse NriPlugin::CreateContainer(std::string_view payload) {
  auto req = DecodeContainerRequest(payload);
  if (!req) return Malformed(req.error());
  auto adjust = Adjust(req->pod, req->container);
  if (!adjust) {
    log_("error", adjust.error().Message());
    return Refused(adjust.error());
  }
  return Ok(EncodeCreateContainerResponse(*adjust));
}

Result<ContainerAdjustment> NriPlugin::Adjust(const PodSandbox& pod, const Container& container) {
  ContainerAdjustment adjust;
  Node annotations = BundleAnnotations(pod, &container);
  auto request = runcwrap::ReadBundleRequest(&annotations);
  if (!request) return std::unexpected(request.error());
  if (!request->Any() && !runcwrap::ConfigAppliesWithoutAnnotations(*request, config_.limits)) {
    return adjust;
  }
  const runcwrap::NodeFacts node = ProbeAsPlugin(seams_, *request);
  auto plan = runcwrap::PlanCreate(
      *request, runcwrap::PodCgroupLocation{container.cgroups_path, pod.cgroup_parent}, node,
      config_.limits);
  if (!plan) return std::unexpected(plan.error());
  for (const auto& w : plan->warnings) log_("warning", request->Subject() + ": " + w);
  // Refused before anything is written: nothing half-applied.
  if (plan->edits.writable_cgroup) {
    // NRI's adjustment can add a mount but not a namespace: a writable cgroup mount without a
    // cgroup namespace of its own would show the container the whole host hierarchy.
    if (!HasOwnCgroupNamespace(container)) {
      return Failure(fmt::format(
          "{}: CgroupOptions.MountMode=Writable needs a cgroup namespace of the container's "
          "own, and the runtime creates this container without one (an NRI plugin cannot add "
          "it; containerd adds it on cgroup v2 unless the container is privileged)",
          request->Subject()));
    }
    adjust.mounts.push_back(WritableCgroupMount());
  }
  if (plan->pod_cgroup) {
    // The sandbox set these; checked again so that a pod cgroup that vanished or was raised
    // meanwhile never gets a container.
    auto state = runcwrap::ApplyPodCgroupLimits(node.unified_root, *plan->pod_cgroup,
                                                plan->pod_limits);
    if (!state) return std::unexpected(std::move(state.error()).Wrap(request->Subject()));
  }
  for (const auto& g : plan->edits.rlimits) {
    adjust.rlimits.push_back({runcwrap::RlimitType(g.name), g.hard, g.soft});
  }
  if (!adjust.rlimits.empty()) granted_[container.id] = Granted{pod.id, adjust.rlimits};
  std::vector<std::string> parts;
  for (const auto& l : adjust.rlimits) {
    parts.push_back(fmt::format("{}={}:{}", l.type, LimitText(l.soft), LimitText(l.hard)));
  }
  if (!adjust.mounts.empty()) parts.push_back("writable cgroup mount");
  if (!parts.empty()) {
    log_("info", fmt::format("{}: {}", request->Subject(), fmt::join(parts, " ")));
  }
  return adjust;
}

void NriPlugin::ReadBack(const PodSandbox& pod, const Container& container) {
  auto it = granted_.find(container.id);
  if (it == granted_.end() || container.pid == 0 || !seams_.read_back) return;
  const std::string subject =
      fmt::format("container {} of pod {}", field::GoQuote(container.name), PodName(pod));
  auto warnings = seams_.read_back(container.pid, it->second.rlimits);
  if (!warnings) {
    // After start nothing can be refused any more: said loudly, in the plugin's log.
    log_("error", fmt::format("{}: read back: {}", subject, warnings.error().Message()));
    return;
  }
  for (const auto& w : *warnings) log_("warning", subject + ": " + w);
}

}  // namespace podlimits::nri
