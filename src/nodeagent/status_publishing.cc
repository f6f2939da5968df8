// The node agent's status manager (node_agent.h "publish"): each status a monitor writes
// becomes the pod's status in the store, merged with what others set (pod_status_merge.h).
#include "nodeagent/node_agent.h"

#include <fmt/format.h>

#include "listwatch/stored_object.h"
#include "base/clock_text.h"
#include "nodeagent/object_fields.h"
#include <sys/stat.h>

#include "api/defaults.h"
#include "codec/json_codec.h"
#include "nodeagent/managed_writes.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/pod_status_merge.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using codec::Node;

namespace {

// The monitor's status file as last written (mtime and size), "" when there is none: an
// unchanged stamp means nothing new to publish.
std::string StatusStamp(const fs::path& dir) {
  struct stat st{};
  if (::stat((dir / "status.json").c_str(), &st) != 0) return "";
  return fmt::format("{}.{}:{}", st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_size);
}

// How often the periodic look compares a quiet pod's stored object in full (Publish).
constexpr auto kFullLookPeriod = std::chrono::seconds(10);

}  // namespace

// kubelet_pod_start_duration_seconds when a pod first runs (a pod found running by a restarted
// agent was observed by the one before), and kubelet_pod_pid_limit_applied_total for a pod whose
// monitor applied its spec.resources.limits.pid.
void NodeAgent::ObservePodStart(const std::string& uid, KnownPod& known,
                                const MonitorStatus& status) {
  if (options_.metrics == nullptr) return;
  if (!known.start_observed && codec::StringOf(status.status.Find("phase")) == "Running") {
    known.start_observed = true;
    options_.metrics->PodStartDuration().Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - known.first_seen)
            .count());
  }
  if (!known.pid_limit_counted &&
      fs::exists(MonitorDirectory(options_.data_dir, uid) / kPidLimitAppliedFile)) {
    known.pid_limit_counted = true;
    options_.metrics->PodPIDLimitApplied().Inc();
  }
}

void NodeAgent::Publish(const std::string& uid, bool periodic) {
  auto it = pods_.find(uid);
  if (it == pods_.end() || it->second.removed) return;
  KnownPod& known = it->second;
  const fs::path dir = MonitorDirectory(options_.data_dir, uid);
  if (known.key.name.empty()) {
    // The object is gone: once its monitor is, so is what the node kept for it.
    if (known.child == 0 && !LiveMonitorPid(dir)) Finalize(uid, known);
    return;
  }
  // The periodic look at a pod whose monitor wrote nothing new (its status file and events file
  // as last published) costs two stats; the stored object is compared in full every
  // kFullLookPeriod, as the kubelet's status manager re-syncs every pod every 10 s. At 1,000 pods
  // the store read and parse of each pod every 2 s was most of the idle daemon's CPU.
  const auto now = std::chrono::steady_clock::now();
  if (periodic && known.events_loaded && now - known.full_look < kFullLookPeriod) {
    struct stat events_st{};
    const std::uint64_t events_size =
        ::stat((dir / "events.jsonl").c_str(), &events_st) == 0
            ? static_cast<std::uint64_t>(events_st.st_size)
            : 0;
    if (StatusStamp(dir) == known.status_stamp && events_size == known.event_offset) return;
  }
  known.full_look = now;
  auto got = store_.Get(known.key);
  if (!got) return;
  auto pod = apiserver::ParseStoredObject(got->data);
  if (!pod || !IsPod(*pod, uid)) return;

  PublishEvents(uid, known, dir);

  // The status work only when the monitor wrote a new status or the object changed since the
  // last look: the periodic resync of every pod then costs a stat and a get.
  const std::string stamp = StatusStamp(dir);
  const bool unchanged = !stamp.empty() && stamp == known.status_stamp &&
                         got->revision == known.synced;
  auto status = unchanged ? std::nullopt : ReadMonitorStatus(dir);
  if (status) {
    known.finished = status->finished;
    ObservePodStart(uid, known, *status);
    Node next = status->status;
    // Others' conditions (DisruptionTarget, readiness gates') stay as stored; PodScheduled
    // keeps the binding's time.
    MergePodStatus(next, *pod, Rfc3339Now());
    // Compared with the stored status (in the store's field order), not the last one written:
    // the object may be new (a mirror pod recreated) or rewritten by someone else.
    const Node* current = pod->Find("status");
    const std::string stored_text = current ? codec::EncodeJson(*current, 0) : std::string();
    const Node live = *pod;
    pod->Set("status", std::move(next));
    api::CanonicalizeOrder(*pod, "Pod");
    const std::string text = codec::EncodeJson(*pod->Find("status"), 0);
    if (stored_text != text) {
      RecordManagedWrite("pods", "status", kKubeletManager, &live, *pod);
      auto updated = store_.Update(known.key, got->revision, [&](std::int64_t rv) {
        return apiserver::RenderStoredObject(*pod, "Pod", rv);
      });
      if (updated) {
        known.status_stamp = stamp;
        known.synced = updated->revision;
      } else if (updated.error().Is(storage::kConflict)) {
        // Someone wrote the pod meanwhile: the next announcement or resync publishes again.
      } else if (!updated.error().Is(storage::kNotFound)) {
        Log("update status of pod " + known.key.name + ": " + updated.error().Message());
      }
    } else {
      known.status_stamp = stamp;
      known.synced = got->revision;
    }
  }
  // A deleted pod whose monitor is done goes now.
  if (!Str(*pod, {"metadata", "deletionTimestamp"}).empty() && known.child == 0 &&
      !LiveMonitorPid(dir)) {
    auto again = store_.Get(known.key);
    if (again) Sync(*again);
  }
}

// DisruptionTarget first, as the kubelet's status manager sets it when a kill of its own starts
// (the eviction manager's, the node shutdown manager's): reason TerminationByKubelet.
void NodeAgent::MarkDisruptionTarget(KnownPod& known, const std::string& uid,
                                     const std::string& message) {
  WriteOwnObject(known.key, "Pod", "disruption condition", kKubeletManager, "status",
                 [&](std::optional<Node> stored) -> std::optional<Node> {
                   if (!stored) return std::nullopt;
                   const std::string stored_uid =
                       codec::StringOf(stored->FindPath({"metadata", "uid"}));
                   if (stored_uid != uid && !known.static_pod) return std::nullopt;
                   Node& conditions =
                       stored->Ensure("status").Ensure("conditions", Node::Kind::kArray);
                   std::erase_if(conditions.items, [](const Node& c) {
                     return codec::StringOf(c.Find("type")) == "DisruptionTarget";
                   });
                   Node c = Node::Object();
                   c.Set("type", Node::String("DisruptionTarget"));
                   c.Set("status", Node::String("True"));
                   c.Set("lastProbeTime", Node::Null());
                   c.Set("lastTransitionTime", Node::String(Rfc3339Now()));
                   c.Set("reason", Node::String("TerminationByKubelet"));
                   c.Set("message", Node::String(message));
                   conditions.items.push_back(std::move(c));
                   return stored;
                 });
}

}  // namespace podlimits::nodeagent
