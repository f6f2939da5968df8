// The node agent's eviction half (node_agent.h "evict"): drives the kubelet's eviction manager
// (kubelet/eviction/eviction_manager.h) with the node's pid observation and its running pods, and carries
// out what it decides: the Node's PIDPressure (posted by SyncNode, tainted by NodeChanged), the
// refusal of new pods, and one pod evicted at a time.
#include <fmt/format.h>

#include "api/objects.h"
#include "api/qos.h"
#include "listwatch/stored_object.h"
#include "base/clock_text.h"
#include "base/fs.h"
#include "codec/json_codec.h"
#include "nodeagent/managed_writes.h"
#include "kubelet/plan/pod_plan.h"
#include "nodeagent/api_event.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/node_agent.h"
#include "nodeagent/static_pods.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using codec::Node;

namespace {

// waitForPodsCleanup's podCleanupTimeout.
constexpr auto kPodCleanupTimeout = std::chrono::seconds(30);
// A pod's admission looks at the node again when the last look is older than this.
constexpr auto kAdmissionObservationAge = std::chrono::seconds(1);

// What the eviction manager needs of a pod, from the pod as admitted.
kubelet::EvictionCandidate CandidateOf(const std::string& uid, const Node& pod, bool static_pod) {
  kubelet::EvictionCandidate c;
  c.uid = uid;
  c.namespace_ = codec::StringOf(pod.FindPath({"metadata", "namespace"}));
  c.name = codec::StringOf(pod.FindPath({"metadata", "name"}));
  c.priority = codec::IntOf(pod.FindPath({"spec", "priority"})).value_or(0);
  c.termination_grace_period = codec::IntOf(pod.FindPath({"spec", "terminationGracePeriodSeconds"}));
  const bool mirror =
      !codec::StringOf(pod.FindPath({"metadata", "annotations", std::string(kConfigMirrorAnnotation)}))
           .empty();
  c.critical = static_pod || mirror || c.priority >= kubelet::kSystemCriticalPriority;
  return c;
}

}  // namespace

const Node* NodeAgent::Admitted(const std::string& uid, KnownPod& known) {
  if (!known.admitted) {
    auto text = ReadSmallFile(MonitorDirectory(options_.data_dir, uid) / "pod.json", 4 << 20);
    if (!text) return nullptr;
    auto pod = apiserver::ParseStoredObject(*text);
    if (!pod) return nullptr;
    known.candidate = CandidateOf(uid, *pod, known.static_pod);
    known.admitted = std::move(*pod);
  }
  return &*known.admitted;
}

std::vector<kubelet::EvictionCandidate> NodeAgent::ActivePods() {
  std::vector<kubelet::EvictionCandidate> active;
  for (auto& [uid, known] : pods_) {
    if (known.removed || known.finished || known.evicted || known.key.name.empty()) continue;
    const fs::path dir = MonitorDirectory(options_.data_dir, uid);
    if (known.child == 0 && !LiveMonitorPid(dir)) continue;
    const Node* pod = Admitted(uid, known);
    if (pod == nullptr) continue;
    kubelet::EvictionCandidate c = *known.candidate;
    if (options_.pod_pids) {
      if (auto pids = options_.pod_pids(*pod)) c.processes = pids->current;
    }
    active.push_back(std::move(c));
  }
  return active;
}

void NodeAgent::SynchronizeEviction() {
  const auto now = std::chrono::steady_clock::now();
  next_eviction_sync_ = now + options_.eviction_period;
  if (!eviction_.Observes() || !options_.observe_pids) return;
  // waitForPodsCleanup: the evicted pod's containers go before anything else is decided.
  if (!cleanup_uid_.empty()) {
    auto it = pods_.find(cleanup_uid_);
    const bool gone = it == pods_.end() || it->second.removed ||
                      (it->second.child == 0 &&
                       !LiveMonitorPid(MonitorDirectory(options_.data_dir, cleanup_uid_)));
    if (!gone && now < cleanup_deadline_) return;
    if (!gone) Log(fmt::format("eviction: timed out waiting for pod {} to be cleaned up", cleanup_uid_));
    cleanup_uid_.clear();
  }
  last_eviction_sync_ = now;
  const kubelet::EvictionSync sync = eviction_.Synchronize(options_.observe_pids(), now, ActivePods());
  if (sync.pid_pressure != pid_pressure_) {
    pid_pressure_ = sync.pid_pressure;
    const auto observed = eviction_.last_observation();
    Log(fmt::format("eviction: PIDPressure is now {} (pid.available {} of {})",
                    pid_pressure_ ? "True" : "False", observed ? observed->available : -1,
                    observed ? observed->capacity : -1));
    SyncNode();
  }
  if (sync.reclaiming) {
    PostNodeEvent("Warning", "EvictionThresholdMet", "Attempting to reclaim pids");
    if (!sync.evict) Log("eviction: thresholds met, but no pod is active to evict");
  }
  if (sync.evict) Evict(*sync.evict);
}

void NodeAgent::Evict(const kubelet::EvictionOrder& order) {
  auto it = pods_.find(order.pod.uid);
  if (it == pods_.end()) return;
  KnownPod& known = it->second;
  const fs::path dir = MonitorDirectory(options_.data_dir, order.pod.uid);
  Log(fmt::format("eviction: evicting pod {}/{} ({} processes, grace {} s): {}",
                  order.pod.namespace_, order.pod.name, order.pod.processes,
                  order.grace_period_seconds, order.message));
  // The monitor's final status says why; written before the stop, so no end can miss it.
  if (auto w = WriteEvictionMessage(dir, order.message); !w) {
    Log("eviction: " + w.error().Message());
    return;
  }
  known.evicted = true;
  MarkDisruptionTarget(known, order.pod.uid, order.message);
  PostPodEvent(known.key, order.pod.uid, "kubelet", "Warning", kubelet::kEvictedReason,
               order.message);
  known.stop_grace = order.grace_period_seconds;
  if (!StopMonitor(dir, order.grace_period_seconds)) {
    // A monitor still starting reads the stop file once it listens.
    (void)WriteFileAtomically(dir / "stop", std::to_string(order.grace_period_seconds) + "\n",
                              0600);
  }
  if (options_.metrics != nullptr) options_.metrics->Evictions(order.signal).Inc();
  cleanup_uid_ = order.pod.uid;
  cleanup_deadline_ = std::chrono::steady_clock::now() + kPodCleanupTimeout;
}

std::int64_t NodeAgent::ActivePodCount(const std::string& except_uid) const {
  std::int64_t n = 0;
  for (const auto& [uid, known] : pods_) {
    if (uid == except_uid || known.removed || known.finished || known.key.name.empty()) continue;
    ++n;
  }
  return n;
}

bool NodeAgent::AdmitPod(const std::string& uid, KnownPod& known, const Node& pod) {
  const kubelet::EvictionCandidate c = CandidateOf(uid, pod, known.static_pod);
  // The kubelet's admit handlers in order: the eviction manager's, then the predicates' pod count.
  if (eviction_.Observes()) {
    if (std::chrono::steady_clock::now() - last_eviction_sync_ > kAdmissionObservationAge) {
      SynchronizeEviction();
    }
    if (const auto refusal = eviction_.AdmissionRefusal(c.critical)) {
      RefusePod(uid, known, pod, std::string(kubelet::kEvictedReason), *refusal);
      return false;
    }
  }
  const std::int64_t used = ActivePodCount(uid);
  if (used + 1 > options_.max_pods) {
    RefusePod(uid, known, pod, "OutOfpods",
              fmt::format("Node didn't have enough resource: pods, requested: 1, used: {}, "
                          "capacity: {}",
                          used, options_.max_pods));
    return false;
  }
  return true;
}

// rejectPod: the pod fails at once with the admission's reason, and a Warning event.
void NodeAgent::RefusePod(const std::string& uid, KnownPod& known, const Node& pod,
                          const std::string& reason, const std::string& message) {
  const fs::path dir = MonitorDirectory(options_.data_dir, uid);
  std::error_code ec;
  fs::create_directories(dir, ec);
  (void)WriteFileAtomically(dir / "pod.json", codec::EncodeJson(pod, 0) + "\n", 0600);
  const std::string qos = std::string(api::Name(
      api::ComputePodQos(api::ReadPod(pod), options_.gates.pod_level_resources)));
  (void)AppendMonitorEvent(
      dir, MonitorEventNow({kubelet::EventType::kWarning, reason, message}));
  if (auto w = WriteMonitorStatus(dir, {RejectedPodStatus(reason, message, Rfc3339Now(), qos), true});
      !w) {
    Log(w.error().Message());
  }
  known.finished = true;
  Log(fmt::format("pod {}/{} refused: {}: {}", codec::StringOf(pod.FindPath({"metadata", "namespace"})),
                  codec::StringOf(pod.FindPath({"metadata", "name"})), reason, message));
  Publish(uid);
}

void NodeAgent::PostNodeEvent(std::string_view type, std::string_view reason,
                              const std::string& message) {
  const std::string similar = fmt::format("{}\n{}\n{}", type, reason, message);
  if (auto it = node_events_.find(similar); it != node_events_.end()) {
    bool done = false;
    WriteOwnObject({"events", "default", it->second}, "Event", "node event", kKubeletManager, "",
                   [&](std::optional<Node> event) -> std::optional<Node> {
                     if (!event) return std::nullopt;  // gone: a new one below
                     done = true;
                     event->Set("count", Node::Int(codec::IntOf(event->Find("count")).value_or(1) + 1));
                     event->Set("lastTimestamp", Node::String(Rfc3339Now()));
                     return event;
                   });
    if (done) return;
  }
  if (auto name = CreateEvent({"", options_.node_name, options_.node_name, options_.node_name,
                               "kubelet", "Node"},
                              type, reason, message)) {
    node_events_[similar] = *name;
  }
}

}  // namespace podlimits::nodeagent
