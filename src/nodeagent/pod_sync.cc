// The node agent's pod sync (node_agent.h "run", "delete", "adopt"): what a pod of the store
// needs of this node now (a monitor started, a stop asked for, the pod finalized), as the
// kubelet's syncPod decides it.
#include "nodeagent/node_agent.h"

#include <fcntl.h>
#include <fmt/format.h>

#include "listwatch/stored_object.h"
#include "base/child_process.h"
#include "base/fs.h"
#include "codec/json_codec.h"
#include "cri/container_log.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/object_fields.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using codec::Node;
using storage::StoredObject;

void NodeAgent::Sync(const StoredObject& object) {
  auto pod = apiserver::ParseStoredObject(object.data);
  if (!pod) return;
  const std::string uid = Str(*pod, {"metadata", "uid"});
  if (uid.empty()) return;
  if (!Str(*pod, {"metadata", "annotations", std::string(kConfigMirrorAnnotation)}).empty()) {
    // A mirror pod only shows a static pod: the node runs the manifest, not the object. Deleted,
    // it goes at once and comes back at the next look at the manifests (the pod runs on).
    if (!Str(*pod, {"metadata", "deletionTimestamp"}).empty()) {
      (void)store_.Delete(object.key, object.revision, [&](std::int64_t rv) {
        return apiserver::RenderStoredObject(*pod, "Pod", rv);
      });
    }
    return;
  }
  const std::string node = Str(*pod, {"spec", "nodeName"});
  const bool deleting = !Str(*pod, {"metadata", "deletionTimestamp"}).empty();
  if (node.empty()) {
    if (!deleting) Bind(object, std::move(*pod));
    return;
  }
  if (node != options_.node_name) return;  // not this node's
  const bool first_sight = !pods_.contains(uid);
  KnownPod& known = pods_[uid];
  if (known.removed) return;
  if (first_sight && fs::exists(MonitorDirectory(options_.data_dir, uid) / "status.json")) {
    known.start_observed = true;      // started before this agent: not timed again
    known.pid_limit_counted = true;
  }
  // Someone else wrote the pod (a readiness gate's condition, a status patch): the next look at
  // it compares in full.
  if (object.revision != known.synced) known.full_look = {};
  known.key = object.key;
  known.log_dir = cri::PodLogDirectory(options_.pod_logs_dir, object.key.namespace_,
                                           object.key.name, uid);
  const fs::path dir = MonitorDirectory(options_.data_dir, uid);
  if (auto status = ReadMonitorStatus(dir); status && status->finished) known.finished = true;
  const bool alive = known.child > 0 || LiveMonitorPid(dir).has_value();
  if (deleting) {
    const std::int64_t grace = IntAt(*pod, {"metadata", "deletionGracePeriodSeconds"}).value_or(30);
    if (alive) {
      if (!known.stop_grace || grace < *known.stop_grace) {
        if (StopMonitor(dir, grace) || known.child > 0) {
          known.stop_grace = grace;
          // A monitor still starting reads the stop file once it listens.
          if (!LiveMonitorPid(dir)) {
            (void)WriteFileAtomically(dir / "stop", std::to_string(grace) + "\n", 0600);
          }
        }
      }
      return;
    }
    if (known.finished || !fs::exists(dir / "pod.json")) {
      Finalize(uid, known);
      return;
    }
    // Its monitor died before the pod finished: a new one cleans up and stops at once.
    (void)WriteFileAtomically(dir / "stop", std::to_string(grace) + "\n", 0600);
    Spawn(uid, known, *pod);
    return;
  }
  if (known.finished) return;
  RefreshMonitoredSpec(uid, known, *pod, dir);
  if (alive) return;
  if (!fs::exists(dir / "status.json") && !AdmitPod(uid, known, *pod)) return;
  Spawn(uid, known, *pod);
}

// An update that changed what the running pod takes (its images, activeDeadlineSeconds): the
// monitor's pod.json is the stored pod again, and the monitor is told (a monitor started later
// reads it there).
void NodeAgent::RefreshMonitoredSpec(const std::string& uid, KnownPod& known, const Node& pod,
                                     const fs::path& dir) {
  const std::string wanted = SpecUpdateSignature(pod);
  if (known.spec_signature.empty()) {
    auto text = ReadSmallFile(dir / "pod.json", 4 << 20);
    if (!text) return;  // no monitor yet: Spawn writes it from this pod
    auto monitored = codec::ParseJsonStream(*text);
    if (!monitored || monitored->size() != 1) return;
    known.spec_signature = SpecUpdateSignature((*monitored)[0]);
  }
  if (known.spec_signature == wanted) return;
  auto told = UpdateMonitoredPod(dir, pod);
  if (!told) {
    Log(fmt::format("pod {}: the update of its spec: {}", uid, told.error().Message()));
    return;
  }
  known.spec_signature = wanted;
}

bool NodeAgent::Spawn(const std::string& uid, KnownPod& known, const Node& pod) {
  const fs::path dir = MonitorDirectory(options_.data_dir, uid);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::exists(dir / "pod.json")) {
    if (auto w = WriteFileAtomically(dir / "pod.json", codec::EncodeJson(pod, 0) + "\n", 0600); !w) {
      Log(w.error().Message());
      return false;
    }
  }
  ChildCommand monitor;
  monitor.argv = {options_.binary.string(), "pod-monitor", "--data-dir",
                  options_.data_dir.string(), "--uid", uid};
  monitor.argv.insert(monitor.argv.end(), options_.monitor_args.begin(),
                      options_.monitor_args.end());
  const fs::path log = dir / "monitor.log";
  UniqueFd log_fd(::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (!log_fd) {
    Log(ErrnoMessage("open", log.string()));
    return false;
  }
  // Its output to its log, and nothing else of the daemon's: a listening socket or the store's
  // files held by a monitor would outlive the daemon (its restart could not listen again). A
  // session of its own (no signal of the daemon's terminal reaches it), the daemon's blocked
  // signals unblocked and its dispositions reset; reaped by ReapChildren.
  monitor.stdout_fd = log_fd.get();
  monitor.stderr_fd = log_fd.get();
  monitor.new_session = true;
  auto pid = StartChild(monitor);
  if (!pid) {
    Log(fmt::format("start the monitor of pod {}: {}", uid, pid.error().Message()));
    return false;
  }
  known.child = *pid;
  return true;
}

void NodeAgent::Finalize(const std::string& uid, KnownPod& known) {
  if (!known.key.name.empty()) {
    auto got = store_.Get(known.key);
    if (got) {
      auto pod = apiserver::ParseStoredObject(got->data);
      if (pod && IsPod(*pod, uid)) {
        auto deleted = store_.Delete(known.key, got->revision, [&](std::int64_t rv) {
          return apiserver::RenderStoredObject(*pod, "Pod", rv);
        });
        if (!deleted && deleted.error().Is(storage::kConflict)) return;  // retried
      }
    }
  }
  // The logs before the monitor directory: its pod.json is what names the log directory to a
  // daemon restarted after a kill -9 between the two (the other order left the logs behind).
  std::error_code ec;
  if (!known.log_dir.empty()) fs::remove_all(known.log_dir, ec);
  fs::remove_all(MonitorDirectory(options_.data_dir, uid), ec);
  known.removed = true;  // erased by Sweep, outside any loop over pods_
}

}  // namespace podlimits::nodeagent
