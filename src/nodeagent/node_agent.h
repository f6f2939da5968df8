// The kubelet half of `podlimits serve`: the pods of the object store run on this node, as the
// kubelet's sync loop runs the pods the apiserver binds to it.
//
//   bind      a new pod gets spec.nodeName and PodScheduled (the one-node scheduler: pod_fit.h's
//             filters against the Node, scheduling gates; a pod left Pending is tried again
//             when the Node changes), with the scheduler's Scheduled / FailedScheduling events
//   run       one monitor process per pod (pod_monitor.h), started from the pod as admitted
//   publish   each status the monitor writes becomes the pod's status in the store, each event
//             an Event object (status manager and event recorder), as the monitor announces
//             them and on a periodic look at every pod (a lost announcement is only late)
//   delete    a pod with a deletionTimestamp is stopped with its deletion grace period; once its
//             monitor is done (or for a pod that never ran) the object is removed, with the
//             pod's monitor directory and logs (the kubelet's status manager deleting with
//             grace 0, then container and log garbage collection)
//   evict     the eviction manager (kubelet/eviction/eviction_manager.h) on the housekeeping interval:
//             PIDPressure on the Node with its events and the node.kubernetes.io/pid-pressure
//             taint, new pods refused under pressure, one pod at a time evicted (its monitor
//             told why, then stopped; the pod stays Failed/Evicted with DisruptionTarget)
//   adopt     at start every stored pod is looked at: a live monitor is left to run (the
//             containers never depended on the daemon), a dead one whose pod had not finished is
//             started again (RunPod cleans up what it left first)
//
// Stop() ends the agent's threads and leaves every monitor and container running (a kubelet
// restart), unless the caller stops the pods first (StopAllPods: `--drain-on-exit`).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "podstreams/pod_exec_handler.h"
#include "podstreams/pod_log_handler.h"
#include "podstreams/pod_portforward_handler.h"
#include "apiserver/rest_handler.h"
#include "base/error.h"
#include "base/unique_fd.h"
#include "codec/node.h"
#include "kubelet/cm/pod_process_count.h"
#include "kubelet/eviction/eviction_manager.h"
#include "kubelet/metrics/metrics.h"
#include "nodeagent/api_event.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/static_pods.h"
#include "storage/object_store.h"
#include "validation/feature_gates.h"

namespace podlimits::nodeagent {

class UsageSampler;  // usage_sampler.h

struct NodeAgentOptions {
  std::filesystem::path data_dir;
  std::string node_name;
  std::filesystem::path binary;  // podlimits itself, run as `pod-monitor`
  // Passed on to every monitor after `pod-monitor --data-dir D --uid U`.
  std::vector<std::string> monitor_args;
  std::filesystem::path pod_logs_dir;
  std::chrono::milliseconds resync{2000};  // the periodic look at every pod
  // The Node object as the kubelet would post it now (`previous`: the stored one, or null;
  // `pid_pressure`: the eviction manager's PIDPressure);
  // registered at start and re-posted every node_status_period (the kubelet's
  // nodeStatusReportFrequency is 5 minutes; the heartbeat a Lease would carry rides along).
  std::function<codec::Node(const codec::Node* previous, bool pid_pressure)> node_status;
  std::chrono::milliseconds node_status_period{60000};
  // The node's Lease (kube-node-lease/<node>), the kubelet's heartbeat: renewed every
  // lease_renew_period, valid for lease_duration_seconds (nodeLeaseDurationSeconds, 40; the
  // kubelet renews at a quarter of it).
  std::chrono::milliseconds lease_renew_period{10000};
  int lease_duration_seconds = 40;
  // Static pods (static_pods.h): the node config's staticPodPath ("" for none), looked at on
  // every resync; their mirror pods are created through `api`, as the kubelet's are.
  std::filesystem::path static_pod_path;
  validation::FeatureGates gates;
  apiserver::RestHandler* api = nullptr;
  // Eviction (none configured: never observed). The kubelet synchronizes every 10 s
  // (evictionMonitoringPeriod); a pod's admission observes again when the last look is older
  // than a second.
  kubelet::EvictionSettings eviction;
  std::chrono::milliseconds eviction_period{10000};
  std::function<std::optional<kubelet::PidObservation>()> observe_pids;
  // A pod's pids.current and pids.max (kubelet/cm/pod_process_count.h), for ranking and metrics.
  std::function<std::optional<kubelet::PodPids>(const codec::Node& pod)> pod_pids;
  kubelet::MetricsRegistry* metrics = nullptr;  // kubelet_evictions, running pods
  // The pods' sampled usage (usage_sampler.h): its families follow the agent's in /metrics.
  const UsageSampler* usage = nullptr;
  // maxPods: the scheduler binds no more active pods than this ("Too many pods"), and the
  // kubelet's admission refuses one past it (OutOfpods).
  std::int64_t max_pods = 110;
};

class NodeAgent : public apiserver::PodLogSource,
                  public apiserver::PodExecutor,
                  public apiserver::PodPortDialer {
 public:
  NodeAgent(storage::ObjectStore& store, NodeAgentOptions options);
  ~NodeAgent();
  NodeAgent(const NodeAgent&) = delete;
  NodeAgent& operator=(const NodeAgent&) = delete;

  Result<void> Start();
  void Stop();
  // The node shutdown manager's part (`--drain-on-exit`): asks every live monitor to stop its
  // pod (the pod's own grace period), each pod marked as the kubelet marks a pod it stops for a
  // node shutdown (DisruptionTarget; status reason Terminated, "Pod was terminated in response
  // to imminent node shutdown."), and waits up to `limit` for them to finish.
  void StopAllPods(std::chrono::seconds limit);

  // /metrics: the kubelet's metrics (kubelet/metrics/metrics.h) and what is read when scraped: running
  // pods and containers, each pod's pids.current / pids.max, the node's pid.available, the
  // daemon's own process_* (nodeagent/node_metrics.h).
  std::string MetricsText();

  // The log file of `container` of the pod whose object this is (`previous`: the run before the
  // current one), or an error in the kubelet's words.
  Result<std::filesystem::path> ContainerLogFile(const codec::Node& pod, std::string_view container,
                                                 bool previous) const override;

  // `kubectl exec`: starts the command in the pod's container through its monitor
  // (nodeagent/node_exec.cc, cri/exec_wire.h) and hands the streams to the API server.
  Result<apiserver::ExecStreams> StartExec(
      const codec::Node& pod, const apiserver::ExecOptions& options) override;

  // `kubectl attach -i`: the container's input through its monitor (nodeagent/node_exec.cc).
  Result<apiserver::AttachedInput> AttachInput(
      const codec::Node& pod, const apiserver::ExecOptions& options) override;

  // `kubectl port-forward`: a socket connected to `port` on the pod's loopback, made by its
  // monitor in the pod's network namespace (nodeagent/node_exec.cc).
  Result<UniqueFd> DialPort(const codec::Node& pod, int port) override;

 private:
  struct KnownPod {
    storage::ObjectKey key;          // cleared once the object is gone from the store
    std::filesystem::path log_dir;     // the pod's log directory
    pid_t child = 0;                   // our own monitor child, until reaped
    std::uint64_t event_offset = 0;    // events.jsonl published up to here
    bool events_loaded = false;        // event_offset read from events.published
    // The event object posted for each (type, reason, message) of the pod, to count repeats.
    std::map<std::string, std::string> posted_events;
    // status.json (mtime and size) and the object's revision when the status was last found
    // published: both unchanged, there is nothing to publish.
    std::string status_stamp;
    std::int64_t synced = 0;
    std::optional<std::int64_t> stop_grace;  // the stop asked for
    bool finished = false;
    bool removed = false;  // finalized: erased by Sweep
    bool static_pod = false;  // run from staticPodPath; `key` names its mirror pod
    bool in_manifests = false;  // its manifest was there at the last look
    bool stopping = false;      // its manifest went: asked to stop
    bool evicted = false;       // the eviction manager stopped it
    // What the eviction manager ranks it by, from its pod.json (read once).
    std::optional<kubelet::EvictionCandidate> candidate;
    std::optional<codec::Node> admitted;
    // For kubelet_pod_start_duration_seconds: when the agent first saw the pod, and whether its
    // start was observed (or it was running before this agent).
    std::chrono::steady_clock::time_point first_seen = std::chrono::steady_clock::now();
    bool start_observed = false;
    bool pid_limit_counted = false;  // kubelet_pod_pid_limit_applied_total counted it
    std::chrono::steady_clock::time_point full_look{};  // Publish last read the object
    // SpecUpdateSignature of the pod its monitor's pod.json holds (empty: not read yet).
    std::string spec_signature;
  };

  void WatchPods();
  void ListenToMonitors();
  void Sync(const storage::StoredObject& object);
  void RefreshMonitoredSpec(const std::string& uid, KnownPod& known, const codec::Node& pod,
                            const std::filesystem::path& dir);
  // `periodic`: the resync's look, which skips a pod whose monitor wrote nothing new since it
  // was last published (and whose object was compared within the last 10 s).
  void Publish(const std::string& uid, bool periodic = false);
  void ObservePodStart(const std::string& uid, KnownPod& known, const MonitorStatus& status);
  void PublishEvents(const std::string& uid, KnownPod& known, const std::filesystem::path& dir);
  void Bind(const storage::StoredObject& object, codec::Node pod);
  // A pod not bound: Pending with PodScheduled False, reason SchedulingGated (gates left) or
  // Unschedulable (pod_fit.h, with a FailedScheduling event), once per message.
  void MarkPending(const storage::StoredObject& object, codec::Node pod, std::string_view reason,
                   const std::string& message);
  // When the Node changed: the node.kubernetes.io/unschedulable taint follows
  // spec.unschedulable (the node lifecycle controller's job), and the pods left Pending are
  // tried again (the scheduler's requeue on a node update).
  void NodeChanged();
  void PostSchedulerEvent(const storage::ObjectKey& pod, const std::string& uid,
                          std::string_view type, std::string_view reason,
                          const std::string& message);
  bool Spawn(const std::string& uid, KnownPod& known, const codec::Node& pod);
  void Finalize(const std::string& uid, KnownPod& known);
  void ReapChildren();
  // `manager` writes it (managed_writes.h), an update to `subresource` ("" or "status").
  void WriteOwnObject(const storage::ObjectKey& key, std::string_view kind,
                      std::string_view what, std::string_view manager, std::string_view subresource,
                      const std::function<std::optional<codec::Node>(std::optional<codec::Node>)>& make);
  void SyncNode();
  void RenewLease();
  void SyncStaticPods();
  void EnsureMirror(const StaticPod& pod);
  void Sweep();
  void Log(const std::string& line) const;
  // The eviction manager's synchronize (eviction_manager.h) and what it decides.
  void SynchronizeEviction();
  std::vector<kubelet::EvictionCandidate> ActivePods();
  // The pod as admitted (its pod.json, read once) and what the eviction manager ranks it by.
  const codec::Node* Admitted(const std::string& uid, KnownPod& known);
  void Evict(const kubelet::EvictionOrder& order);
  // The pod's DisruptionTarget condition (TerminationByKubelet, `message`) in the store.
  void MarkDisruptionTarget(KnownPod& known, const std::string& uid, const std::string& message);
  // The kubelet's admission of a pod never started here: the eviction manager's (refused under
  // PIDPressure) and the pods capacity (OutOfpods). False, with the pod recorded as refused.
  bool AdmitPod(const std::string& uid, KnownPod& known, const codec::Node& pod);
  // Pods bound here that have not finished (and are not being removed).
  std::int64_t ActivePodCount(const std::string& except_uid = "") const;
  void RefusePod(const std::string& uid, KnownPod& known, const codec::Node& pod,
                 const std::string& reason, const std::string& message);
  void PostPodEvent(const storage::ObjectKey& pod, const std::string& uid,
                    std::string_view component, std::string_view type, std::string_view reason,
                    const std::string& message);
  // Posts `subject`'s event as the kubelet's recorder names it; the event's name, or nullopt when
  // the store refused it.
  std::optional<std::string> CreateEvent(const EventSubject& subject, std::string_view type,
                                         std::string_view reason, const std::string& message);
  // An event about the Node (involvedObject kind Node, namespace default); a repeat of the same
  // type, reason and message raises the first one's count.
  void PostNodeEvent(std::string_view type, std::string_view reason, const std::string& message);

  storage::ObjectStore& store_;
  NodeAgentOptions options_;
  UniqueFd notify_;
  std::atomic<bool> stopping_{false};
  std::thread watch_thread_, listen_thread_;
  std::int64_t watched_ = 0;  // the revision WatchPods has seen

  mutable std::mutex mu_;
  std::map<std::string, KnownPod> pods_;  // by uid (a static pod's: its hash)
  std::set<std::string> reported_;        // static pod problems already logged
  std::set<storage::ObjectKey> unschedulable_;  // pods left Pending by the fit check
  std::int64_t node_revision_ = -1;                // the Node's revision NodeChanged last saw

  kubelet::EvictionManager eviction_;
  std::chrono::steady_clock::time_point next_eviction_sync_{};
  std::chrono::steady_clock::time_point last_eviction_sync_{};
  bool pid_pressure_ = false;  // as last posted on the Node
  // waitForPodsCleanup: no other eviction until the evicted pod's monitor is done (30 s at most).
  std::string cleanup_uid_;
  std::chrono::steady_clock::time_point cleanup_deadline_{};
  std::map<std::string, std::string> node_events_;  // type/reason/message -> event name
  // The events earlier agents posted, by pod uid, then type/reason/message -> event name: built
  // once, from the store, for the pods known then (PublishEvents).
  std::optional<std::map<std::string, std::map<std::string, std::string>>> earlier_events_;
};

}  // namespace podlimits::nodeagent
