#include "nodeagent/node_agent.h"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "api/defaults.h"
#include "api/json_codec.h"
#include "base/clock_text.h"
#include "apiserver/stored_object.h"
#include "base/fs.h"
#include "cri/container_log.h"
#include "kubelet/plan/pod_plan.h"
#include "nodeagent/api_event.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/pod_fit.h"
#include "nodeagent/pod_status_merge.h"

extern char** environ;

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using api::Node;
using storage::ObjectKey;
using storage::StoreError;
using storage::StoredObject;

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

// The taints the node lifecycle controller keeps on a cordoned node and, by condition
// (TaintNodesByCondition), on a node under PIDPressure.
constexpr std::string_view kUnschedulableTaintKey = "node.kubernetes.io/unschedulable";
constexpr std::string_view kPidPressureTaintKey = "node.kubernetes.io/pid-pressure";

std::string Str(const Node& object, std::initializer_list<std::string_view> path) {
  const Node* n = object.FindPath(path);
  return n && n->IsString() ? n->scalar : std::string();
}

bool IsCordonTaint(const Node& taint) {
  return Str(taint, {"key"}) == kUnschedulableTaintKey && Str(taint, {"effect"}) == "NoSchedule";
}

bool IsPidPressureTaint(const Node& taint) {
  return Str(taint, {"key"}) == kPidPressureTaintKey && Str(taint, {"effect"}) == "NoSchedule";
}

bool HasTaint(const Node& node, bool (*match)(const Node&)) {
  const Node* taints = node.FindPath({"spec", "taints"});
  return taints && taints->IsArray() && std::any_of(taints->items.begin(), taints->items.end(), match);
}

// The status of the node's PIDPressure condition ("" when it has none).
std::string PidPressureStatus(const Node& node) {
  const Node* conditions = node.FindPath({"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return "";
  for (const Node& c : conditions->items) {
    if (Str(c, {"type"}) == "PIDPressure") return Str(c, {"status"});
  }
  return "";
}


Node ScheduledCondition() {
  Node c = Node::Object();
  c.Set("type", Node::String("PodScheduled"));
  c.Set("status", Node::String("True"));
  c.Set("lastProbeTime", Node::Null());
  c.Set("lastTransitionTime", Node::String(Rfc3339Now()));
  return c;
}

std::optional<std::int64_t> IntAt(const Node& object, std::initializer_list<std::string_view> path) {
  return api::IntOf(object.FindPath(path));
}

// The stored pod is the one `uid` names: itself, or the mirror of that static pod.
bool IsPod(const Node& pod, const std::string& uid) {
  if (Str(pod, {"metadata", "uid"}) == uid) return true;
  return Str(pod, {"metadata", "annotations", std::string(kConfigMirrorAnnotation)}) == uid;
}

}  // namespace

NodeAgent::NodeAgent(storage::ObjectStore& store, NodeAgentOptions options)
    : store_(store), options_(std::move(options)), eviction_(options_.eviction) {}

NodeAgent::~NodeAgent() { Stop(); }

void NodeAgent::Log(const std::string& line) const {
  std::fprintf(stderr, "podlimits serve: %s\n", line.c_str());
  std::fflush(stderr);
}

Result<void> NodeAgent::Start() {
  std::error_code ec;
  fs::create_directories(options_.data_dir / "pods", ec);
  if (ec) return Failure("mkdir", options_.data_dir / "pods", ec.message());
  auto socket = BindNotifySocket(options_.data_dir);
  if (!socket) return std::unexpected(socket.error());
  notify_ = std::move(*socket);
  SyncNode();
  RenewLease();
  // Adoption: every stored pod, before any change comes in.
  auto listed = store_.List("pods", "", true);
  if (!listed) return std::unexpected(listed.error().error);
  watched_ = listed->revision;
  {
    std::lock_guard lock(mu_);
    for (const auto& pod : listed->items) Sync(pod);
    SyncStaticPods();  // static pods are the manifests', not orphans
    // Monitor directories of pods the store no longer has (deleted while the daemon was
    // down): their pods are stopped and what they left removed.
    for (const auto& entry : fs::directory_iterator(options_.data_dir / "pods", ec)) {
      const std::string uid = entry.path().filename().string();
      if (pods_.contains(uid)) continue;
      KnownPod& known = pods_[uid];
      if (auto pod = ReadSmallFile(entry.path() / "pod.json", 4 << 20)) {
        if (auto tree = apiserver::ParseStoredObject(*pod)) {
          known.log_dir = cri::PodLogDirectory(options_.pod_logs_dir,
                                                   Str(*tree, {"metadata", "namespace"}),
                                                   Str(*tree, {"metadata", "name"}), uid);
        }
      }
      if (LiveMonitorPid(entry.path())) {
        known.stop_grace = 0;
        (void)StopMonitor(entry.path(), 0);
      } else {
        Finalize(uid, known);
      }
    }
    Sweep();
  }
  watch_thread_ = std::thread([this] { WatchPods(); });
  listen_thread_ = std::thread([this] { ListenToMonitors(); });
  return {};
}

void NodeAgent::Stop() {
  if (stopping_.exchange(true)) return;
  if (notify_.valid()) ::shutdown(notify_.get(), SHUT_RDWR);
  if (watch_thread_.joinable()) watch_thread_.join();
  if (listen_thread_.joinable()) listen_thread_.join();
}

void NodeAgent::StopAllPods(std::chrono::seconds limit) {
  {
    std::lock_guard lock(mu_);
    for (auto& [uid, known] : pods_) {
      // The pods' own grace periods, as a kubelet shutting down gives them.
      if (!known.finished) (void)StopMonitor(MonitorDirectory(options_.data_dir, uid), std::nullopt);
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    bool any = false;
    {
      std::lock_guard lock(mu_);
      ReapChildren();
      for (auto& [uid, known] : pods_) {
        if (known.child > 0 || LiveMonitorPid(MonitorDirectory(options_.data_dir, uid))) any = true;
      }
    }
    if (!any) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::lock_guard lock(mu_);
  for (auto& [uid, known] : pods_) Publish(uid);
}

void NodeAgent::WatchPods() {
  // The newest revision of any resource when the pods' changes were last read: the wait below is
  // for a write after it. (Waiting for one after watched_, the last *pod* change, returned at once
  // after any other write, a Lease renewal or an event, and spun until the next pod change.)
  std::int64_t horizon = watched_;
  while (!stopping_) {
    horizon = std::max(horizon, store_.WaitForChange(horizon, std::chrono::milliseconds(0)));
    auto changes = store_.ChangesSince("pods", "", true, watched_);
    if (!changes) {
      // Compacted past us (only after a long stall): start over from the objects themselves.
      auto listed = store_.List("pods", "", true);
      if (listed) {
        std::lock_guard lock(mu_);
        watched_ = listed->revision;
        for (const auto& pod : listed->items) Sync(pod);
      }
    } else {
      std::lock_guard lock(mu_);
      for (const auto& change : *changes) {
        Sweep();
        watched_ = change.object.revision;
        if (change.type != storage::WatchEventType::kDeleted) {
          Sync(change.object);
          continue;
        }
        // Removed from the store (a force delete, or our own finalize): stop what still runs.
        auto pod = apiserver::ParseStoredObject(change.object.data);
        const std::string uid = pod ? Str(*pod, {"metadata", "uid"}) : "";
        auto it = pods_.find(uid);
        if (it == pods_.end()) continue;
        KnownPod& known = it->second;
        known.key = {};  // no object to publish to any more
        const fs::path dir = MonitorDirectory(options_.data_dir, uid);
        if (known.child == 0 && !LiveMonitorPid(dir)) {
          Finalize(uid, known);
        } else if (!known.finished) {
          known.stop_grace = 0;
          (void)StopMonitor(dir, 0);
        }
      }
    }
    store_.WaitForChange(horizon, std::chrono::milliseconds(500));
  }
}

void NodeAgent::ListenToMonitors() {
  auto next_resync = std::chrono::steady_clock::now();
  auto next_node_status = std::chrono::steady_clock::now() + options_.node_status_period;
  auto next_lease = std::chrono::steady_clock::now() + options_.lease_renew_period;
  while (!stopping_) {
    if (std::chrono::steady_clock::now() >= next_node_status) {
      next_node_status = std::chrono::steady_clock::now() + options_.node_status_period;
      SyncNode();
    }
    if (std::chrono::steady_clock::now() >= next_lease) {
      next_lease = std::chrono::steady_clock::now() + options_.lease_renew_period;
      RenewLease();
    }
    pollfd p{notify_.get(), POLLIN, 0};
    (void)poll(&p, 1, 200);
    if (stopping_) break;
    std::vector<std::string> uids;
    char buf[256];
    for (;;) {
      const ssize_t n = ::recv(notify_.get(), buf, sizeof buf, MSG_DONTWAIT);
      if (n <= 0) break;
      uids.emplace_back(buf, static_cast<std::size_t>(n));
    }
    std::lock_guard lock(mu_);
    for (const auto& uid : uids) Publish(uid);
    ReapChildren();
    if (std::chrono::steady_clock::now() >= next_eviction_sync_) SynchronizeEviction();
    if (std::chrono::steady_clock::now() >= next_resync) {
      next_resync = std::chrono::steady_clock::now() + options_.resync;
      SyncStaticPods();
      NodeChanged();
      std::vector<std::string> all;
      for (const auto& [uid, known] : pods_) all.push_back(uid);
      for (const auto& uid : all) Publish(uid, /*periodic=*/true);
      // Pods whose monitor died without finishing: look at them again.
      for (const auto& uid : all) {
        auto it = pods_.find(uid);
        if (it == pods_.end() || it->second.finished || it->second.child > 0 ||
            it->second.key.name.empty()) {
          continue;
        }
        if (LiveMonitorPid(MonitorDirectory(options_.data_dir, uid))) continue;
        auto got = store_.Get(it->second.key);
        if (got) Sync(*got);
      }
    }
  }
}

// Creates or updates an object the node keeps itself (its Node, its Lease). `make` gets the
// stored object (nullopt when there is none yet) and returns what to write, or nullopt to write
// nothing; a write that lost a race with another writer is made again from the new object.
void NodeAgent::WriteOwnObject(const ObjectKey& key, std::string_view kind, std::string_view what,
                               const std::function<std::optional<Node>(std::optional<Node>)>& make) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto got = store_.Get(key);
    if (!got && got.error().kind != StoreError::Kind::kNotFound) {
      Log(fmt::format("{}: {}", what, got.error().error.Message()));
      return;
    }
    std::optional<Node> stored;
    if (got) {
      stored = apiserver::ParseStoredObject(got->data);
      if (!stored) {
        Log(fmt::format("{}: the stored {} does not parse", what, kind));
        return;
      }
    }
    std::optional<Node> object = make(std::move(stored));
    if (!object) return;
    auto render = [&](std::int64_t rv) { return apiserver::RenderStoredObject(*object, kind, rv); };
    auto written = got ? store_.Update(key, got->revision, render) : store_.Create(key, render);
    if (written) return;
    const auto failed = written.error().kind;
    if (failed != StoreError::Kind::kConflict && failed != StoreError::Kind::kAlreadyExists) {
      Log(fmt::format("{}: {}", what, written.error().error.Message()));
      return;
    }
  }
}

// The node registers itself, then posts its status: its labels and annotations are merged into
// what others set (the spec, say taints and unschedulable, is kept), the status replaced.
void NodeAgent::SyncNode() {
  if (!options_.node_status) return;
  std::string pid_before, pid_after;
  WriteOwnObject({"nodes", "", options_.node_name}, "Node", "node status",
                 [&](std::optional<Node> stored) -> std::optional<Node> {
                   Node fresh = options_.node_status(stored ? &*stored : nullptr, pid_pressure_);
                   pid_before = stored ? PidPressureStatus(*stored) : "";
                   pid_after = PidPressureStatus(fresh);
                   if (!stored) {
                     fresh.Ensure("metadata").Set("uid", Node::String(kubelet::NewUuid()));
                     fresh.Ensure("metadata").Set("creationTimestamp",
                                                  Node::String(Rfc3339Now()));
                     return fresh;
                   }
                   Node& meta = stored->Ensure("metadata");
                   for (const char* field : {"labels", "annotations"}) {
                     const Node* ours = fresh.FindPath({"metadata", field});
                     if (ours == nullptr || !ours->IsObject()) continue;
                     Node& kept = meta.Ensure(field);
                     for (const auto& m : ours->members) kept.Set(m.key, m.value);
                   }
                   stored->Set("status", *fresh.Find("status"));
                   return stored;
                 });
  // The PIDPressure setter's event when the condition is new or its status flips.
  if (pid_after != pid_before && !pid_after.empty()) {
    const char* event = pid_after == "True" ? "NodeHasInsufficientPID" : "NodeHasSufficientPID";
    PostNodeEvent("Normal", event,
                  fmt::format("Node {} status is now: {}", options_.node_name, event));
  }
}

// The kubelet's node lease controller: kube-node-lease/<node>, owned by the Node, held by the
// node, renewed with the time of each renewal (a MicroTime).
void NodeAgent::RenewLease() {
  if (!options_.node_status) return;  // no Node object, no Lease
  WriteOwnObject(
      {"leases", "kube-node-lease", options_.node_name}, "Lease", "renew node lease",
      [&](std::optional<Node> lease) -> std::optional<Node> {
        if (!lease) {
          auto node = store_.Get({"nodes", "", options_.node_name});
          if (!node) return std::nullopt;  // registered first; the next renewal makes it
          auto node_tree = apiserver::ParseStoredObject(node->data);
          if (!node_tree) return std::nullopt;
          lease = Node::Object();
          lease->Set("kind", Node::String("Lease"));
          lease->Set("apiVersion", Node::String("coordination.k8s.io/v1"));
          Node meta = Node::Object();
          meta.Set("name", Node::String(options_.node_name));
          meta.Set("namespace", Node::String("kube-node-lease"));
          meta.Set("uid", Node::String(kubelet::NewUuid()));
          meta.Set("creationTimestamp", Node::String(Rfc3339Now()));
          Node owner = Node::Object();
          owner.Set("apiVersion", Node::String("v1"));
          owner.Set("kind", Node::String("Node"));
          owner.Set("name", Node::String(options_.node_name));
          owner.Set("uid", Node::String(Str(*node_tree, {"metadata", "uid"})));
          Node owners = Node::Array();
          owners.items.push_back(std::move(owner));
          meta.Set("ownerReferences", std::move(owners));
          lease->Set("metadata", std::move(meta));
        }
        Node spec = Node::Object();
        spec.Set("holderIdentity", Node::String(options_.node_name));
        spec.Set("leaseDurationSeconds", Node::Int(options_.lease_duration_seconds));
        spec.Set("renewTime", Node::String(Rfc3339MicroNow()));
        lease->Set("spec", std::move(spec));
        return lease;
      });
}

void NodeAgent::SyncStaticPods() {
  if (options_.static_pod_path.empty()) return;
  StaticPodScan scan =
      ReadStaticPods(options_.static_pod_path, options_.node_name, options_.gates, Rfc3339Now());
  for (const auto& e : scan.errors) {
    if (reported_.insert(e).second) Log("static pod not run: " + e);
  }
  for (auto& [uid, known] : pods_) {
    if (known.static_pod) known.in_manifests = false;
  }
  for (const StaticPod& sp : scan.pods) {
    KnownPod& known = pods_[sp.uid];
    if (known.removed) continue;
    known.static_pod = true;
    known.in_manifests = true;
    const std::string ns = Str(sp.object, {"metadata", "namespace"});
    const std::string name = Str(sp.object, {"metadata", "name"});
    known.key = {"pods", ns, name};
    known.log_dir = cri::PodLogDirectory(options_.pod_logs_dir, ns, name, sp.uid);
    const fs::path dir = MonitorDirectory(options_.data_dir, sp.uid);
    if (auto status = ReadMonitorStatus(dir); status && status->finished) known.finished = true;
    const bool alive = known.child > 0 || LiveMonitorPid(dir).has_value();
    if (!alive && !known.finished) Spawn(sp.uid, known, sp.object);
    EnsureMirror(sp);
  }
  // Manifests that are gone: their pods stop, then go with their mirrors.
  for (auto& [uid, known] : pods_) {
    if (!known.static_pod || known.in_manifests || known.removed) continue;
    const fs::path dir = MonitorDirectory(options_.data_dir, uid);
    if (known.child > 0 || LiveMonitorPid(dir)) {
      if (!known.stopping) {
        known.stopping = true;  // with the pod's own grace period, as the kubelet stops it
        (void)StopMonitor(dir, std::nullopt);
      }
      continue;
    }
    Finalize(uid, known);
  }
  Sweep();
}

// The static pod's mirror in the API, created as the kubelet's mirror client does; one left by
// an older manifest goes first.
void NodeAgent::EnsureMirror(const StaticPod& pod) {
  if (options_.api == nullptr) return;
  const std::string ns = Str(pod.object, {"metadata", "namespace"});
  const std::string name = Str(pod.object, {"metadata", "name"});
  const ObjectKey key{"pods", ns, name};
  if (auto got = store_.Get(key)) {
    auto stored = apiserver::ParseStoredObject(got->data);
    if (!stored || IsPod(*stored, pod.uid)) return;
    const std::string other =
        Str(*stored, {"metadata", "annotations", std::string(kConfigMirrorAnnotation)});
    if (other.empty()) {
      const std::string why = fmt::format("static pod {}/{} ({}): a pod of that name exists in the "
                                          "API and is not its mirror",
                                          ns, name, pod.file.string());
      if (reported_.insert(why).second) Log(why);
      return;
    }
    (void)store_.Delete(key, got->revision, [&](std::int64_t rv) {
      return apiserver::RenderStoredObject(*stored, "Pod", rv);
    });
  }
  std::string node_uid;
  if (auto node = store_.Get({"nodes", "", options_.node_name})) {
    if (auto tree = apiserver::ParseStoredObject(node->data)) {
      node_uid = Str(*tree, {"metadata", "uid"});
    }
  }
  http::HttpRequest create;
  create.method = "POST";
  create.path = "/api/v1/namespaces/" + ns + "/pods";
  create.headers["content-type"] = "application/json";
  create.body = api::EncodeJson(MirrorPod(pod, node_uid), 0);
  create.user = "system:node:" + options_.node_name;
  auto r = options_.api->Handle(create);
  if (r && r->status != 201 && r->status != 409) {
    const std::string why =
        fmt::format("mirror pod {}/{} not created: {}", ns, name, r->body);
    if (reported_.insert(why).second) Log(why);
  }
}

void NodeAgent::ReapChildren() {
  std::vector<std::string> exited;
  for (auto& [uid, known] : pods_) {
    if (known.child <= 0) continue;
    int status = 0;
    if (waitpid(known.child, &status, WNOHANG) == known.child) {
      known.child = 0;
      exited.push_back(uid);
    }
  }
  for (const auto& uid : exited) Publish(uid);
  Sweep();
}

void NodeAgent::Sweep() {
  std::erase_if(pods_, [](const auto& entry) { return entry.second.removed; });
}

void NodeAgent::Bind(const StoredObject& object, Node pod) {
  // A pod with scheduling gates is not looked at until they are all removed (an update of the
  // pod, which brings it here again).
  if (const Node* gates = pod.FindPath({"spec", "schedulingGates"});
      gates && gates->IsArray() && !gates->items.empty()) {
    MarkPending(object, std::move(pod), "SchedulingGated",
                "Scheduling is blocked due to non-empty scheduling gates");
    return;
  }
  // The scheduler's filters, against the Node as it is now (none registered: nothing to
  // filter on, as in tests that run the agent alone).
  if (auto node = store_.Get({"nodes", "", options_.node_name})) {
    if (auto tree = apiserver::ParseStoredObject(node->data)) {
      if (auto reason = UnfitReason(pod, *tree, ActivePodCount())) {
        unschedulable_.insert(object.key);
        MarkPending(object, std::move(pod), "Unschedulable", FitErrorMessage(*reason));
        return;
      }
    }
  }
  unschedulable_.erase(object.key);
  pod.Ensure("spec").Set("nodeName", Node::String(options_.node_name));
  Node& status = pod.Ensure("status");
  Node& conditions = status.Ensure("conditions", Node::Kind::kArray);
  std::erase_if(conditions.items,
                [](const Node& c) { return Str(c, {"type"}) == "PodScheduled"; });
  conditions.items.push_back(ScheduledCondition());
  auto updated = store_.Update(object.key, object.revision, [&](std::int64_t rv) {
    return apiserver::RenderStoredObject(pod, "Pod", rv);
  });
  if (!updated) {
    if (updated.error().kind != StoreError::Kind::kConflict &&
        updated.error().kind != StoreError::Kind::kNotFound) {
      Log("bind pod " + object.key.name + ": " + updated.error().error.Message());
    }
    return;
  }
  // Counted as the node's from now on (the scheduler's assumed pod), before the watch brings it.
  pods_[Str(pod, {"metadata", "uid"})].key = object.key;
  PostSchedulerEvent(object.key, Str(pod, {"metadata", "uid"}), "Normal", "Scheduled",
                     fmt::format("Successfully assigned {}/{} to {}", object.key.namespace_,
                                 object.key.name, options_.node_name));
}

void NodeAgent::MarkPending(const StoredObject& object, Node pod, std::string_view reason,
                            const std::string& message) {
  Node& conditions = pod.Ensure("status").Ensure("conditions", Node::Kind::kArray);
  for (const Node& c : conditions.items) {
    if (Str(c, {"type"}) == "PodScheduled" && Str(c, {"status"}) == "False" &&
        Str(c, {"reason"}) == reason && Str(c, {"message"}) == message) {
      return;  // already said so
    }
  }
  std::erase_if(conditions.items,
                [](const Node& c) { return Str(c, {"type"}) == "PodScheduled"; });
  Node c = ScheduledCondition();
  c.Set("status", Node::String("False"));
  c.Set("reason", Node::String(std::string(reason)));
  c.Set("message", Node::String(message));
  conditions.items.push_back(std::move(c));
  Node& status = *pod.Find("status");
  if (status.Find("phase") == nullptr) status.Set("phase", Node::String("Pending"));
  auto updated = store_.Update(object.key, object.revision, [&](std::int64_t rv) {
    return apiserver::RenderStoredObject(pod, "Pod", rv);
  });
  if (!updated) return;  // changed meanwhile: that change brings the pod here again
  // A gated pod was never tried: only a failed attempt is an event.
  if (reason == "Unschedulable") {
    PostSchedulerEvent(object.key, Str(pod, {"metadata", "uid"}), "Warning", "FailedScheduling",
                       message);
  }
}

void NodeAgent::PostSchedulerEvent(const ObjectKey& pod, const std::string& uid,
                                   std::string_view type, std::string_view reason,
                                   const std::string& message) {
  PostPodEvent(pod, uid, "default-scheduler", type, reason, message);
}

void NodeAgent::PostPodEvent(const ObjectKey& pod, const std::string& uid,
                             std::string_view component, std::string_view type,
                             std::string_view reason, const std::string& message) {
  (void)CreateEvent({pod.namespace_, pod.name, uid, options_.node_name, std::string(component)},
                    type, reason, message);
}

std::optional<std::string> NodeAgent::CreateEvent(const EventSubject& subject,
                                                  std::string_view type, std::string_view reason,
                                                  const std::string& message) {
  const MonitorEvent e = MonitorEventNow(
      {type == "Warning" ? kubelet::EventType::kWarning : kubelet::EventType::kNormal,
       std::string(reason), message});
  Node event = ApiEvent(subject, e);
  event.Ensure("metadata").Set("uid", Node::String(kubelet::NewUuid()));
  event.Ensure("metadata").Set("creationTimestamp", Node::String(e.time));
  const std::string name = ApiEventName(subject, e);
  const std::string ns = api::StringOf(event.FindPath({"metadata", "namespace"}));
  auto created = store_.Create({"events", ns, name}, [&](std::int64_t rv) {
    return apiserver::RenderStoredObject(event, "Event", rv);
  });
  if (!created) return std::nullopt;
  return name;
}

void NodeAgent::NodeChanged() {
  auto got = store_.Get({"nodes", "", options_.node_name});
  if (!got || got->revision == node_revision_) return;
  node_revision_ = got->revision;
  auto node = apiserver::ParseStoredObject(got->data);
  if (!node) return;
  const Node* u = node->FindPath({"spec", "unschedulable"});
  const bool cordoned = u != nullptr && u->AsBool();
  const bool pressure = PidPressureStatus(*node) == "True";
  if (cordoned != HasTaint(*node, IsCordonTaint) ||
      pressure != HasTaint(*node, IsPidPressureTaint)) {
    WriteOwnObject({"nodes", "", options_.node_name}, "Node", "node taints",
                   [&](std::optional<Node> stored) -> std::optional<Node> {
                     if (!stored) return std::nullopt;
                     const bool pid_pressure = PidPressureStatus(*stored) == "True";
                     Node& spec = stored->Ensure("spec");
                     const Node* now = spec.Find("unschedulable");
                     const bool want = now != nullptr && now->AsBool();
                     Node& taints = spec.Ensure("taints", Node::Kind::kArray);
                     std::erase_if(taints.items, IsCordonTaint);
                     std::erase_if(taints.items, IsPidPressureTaint);
                     auto add = [&taints](std::string_view key) {
                       Node taint = Node::Object();
                       taint.Set("key", Node::String(std::string(key)));
                       taint.Set("effect", Node::String("NoSchedule"));
                       taints.items.push_back(std::move(taint));
                     };
                     if (want) add(kUnschedulableTaintKey);
                     if (pid_pressure) add(kPidPressureTaintKey);
                     if (taints.items.empty()) spec.Erase("taints");
                     return stored;
                   });
  }
  const std::set<ObjectKey> pending = std::move(unschedulable_);
  unschedulable_.clear();
  for (const ObjectKey& key : pending) {
    if (auto pod = store_.Get(key)) Sync(*pod);
  }
}

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
  if (known.finished || alive) return;
  if (!fs::exists(dir / "status.json") && !AdmitPod(uid, known, *pod)) return;
  Spawn(uid, known, *pod);
}

bool NodeAgent::Spawn(const std::string& uid, KnownPod& known, const Node& pod) {
  const fs::path dir = MonitorDirectory(options_.data_dir, uid);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::exists(dir / "pod.json")) {
    if (auto w = WriteFileAtomically(dir / "pod.json", api::EncodeJson(pod, 0) + "\n", 0600); !w) {
      Log(w.error().Message());
      return false;
    }
  }
  std::vector<std::string> args = {options_.binary.string(), "pod-monitor", "--data-dir",
                                   options_.data_dir.string(), "--uid", uid};
  args.insert(args.end(), options_.monitor_args.begin(), options_.monitor_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  const std::string log = (dir / "monitor.log").string();
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  // Nothing else of the daemon's: a listening socket or the store's files held by a monitor
  // would outlive the daemon (its restart could not listen again).
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A session of its own (no signal of the daemon's terminal reaches it), the daemon's blocked
  // signals unblocked and its dispositions reset.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    Log(fmt::format("start the monitor of pod {}: {}", uid, std::strerror(rc)));
    return false;
  }
  known.child = pid;
  return true;
}

// kubelet_pod_start_duration_seconds when a pod first runs (a pod found running by a restarted
// agent was observed by the one before), and kubelet_pod_pid_limit_applied_total for a pod whose
// monitor applied its spec.resources.limits.pid.
void NodeAgent::ObservePodStart(const std::string& uid, KnownPod& known,
                                const MonitorStatus& status) {
  if (options_.metrics == nullptr) return;
  if (!known.start_observed && api::StringOf(status.status.Find("phase")) == "Running") {
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
    const std::string stored_text = current ? api::EncodeJson(*current, 0) : std::string();
    pod->Set("status", std::move(next));
    api::CanonicalizeOrder(*pod, "Pod");
    const std::string text = api::EncodeJson(*pod->Find("status"), 0);
    if (stored_text != text) {
      auto updated = store_.Update(known.key, got->revision, [&](std::int64_t rv) {
        return apiserver::RenderStoredObject(*pod, "Pod", rv);
      });
      if (updated) {
        known.status_stamp = stamp;
        known.synced = updated->revision;
      } else if (updated.error().kind == StoreError::Kind::kConflict) {
        // Someone wrote the pod meanwhile: the next announcement or resync publishes again.
      } else if (updated.error().kind != StoreError::Kind::kNotFound) {
        Log("update status of pod " + known.key.name + ": " + updated.error().error.Message());
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

// The kubelet's event recorder with its correlator: an event like one already posted for the
// pod (same type, reason and message) raises that one's count and lastTimestamp, as
// `kubectl describe` shows "(x3 over 2m)". How far the events file was published is kept beside
// it, so a restarted agent neither loses nor repeats any.
void NodeAgent::PublishEvents(const std::string& uid, KnownPod& known, const fs::path& dir) {
  if (!known.events_loaded) {
    known.events_loaded = true;
    if (auto text = ReadSmallFile(dir / "events.published", 64)) {
      try {
        known.event_offset = std::stoull(*text);
      } catch (...) {
      }
    }
    // The events an earlier agent posted for the pod, so repeats still count on them. Only a
    // pod an earlier agent published events for has any; they come from one index of the
    // store's events built the first time one is needed (a list of every event of the
    // namespace for each new pod cost a node that had churned thousands of pods more and more
    // memory and time, bench/serve_soak.py).
    if (known.event_offset > 0) {
      if (!earlier_events_) {
        earlier_events_.emplace();
        if (auto listed = store_.List("events", "", true)) {
          for (const auto& item : listed->items) {
            auto event = apiserver::ParseStoredObject(item.data);
            if (!event) continue;
            const std::string about = Str(*event, {"involvedObject", "uid"});
            if (!pods_.contains(about)) continue;
            (*earlier_events_)[about][fmt::format("{}\n{}\n{}", Str(*event, {"type"}),
                                                  Str(*event, {"reason"}),
                                                  Str(*event, {"message"}))] = item.key.name;
          }
        }
      }
      if (auto it = earlier_events_->find(uid); it != earlier_events_->end()) {
        known.posted_events = std::move(it->second);
        earlier_events_->erase(it);
      }
    }
  }
  const std::uint64_t before = known.event_offset;
  auto events = ReadMonitorEvents(dir, known.event_offset);
  if (events.empty()) return;
  EventSubject subject{known.key.namespace_, known.key.name, uid, options_.node_name};
  for (const auto& e : events) {
    const std::string similar = fmt::format("{}\n{}\n{}", kubelet::EventTypeName(e.event.type),
                                            e.event.reason, e.event.message);
    if (auto it = known.posted_events.find(similar); it != known.posted_events.end()) {
      const ObjectKey key{"events", known.key.namespace_, it->second};
      bool done = false;
      for (int attempt = 0; attempt < 3 && !done; ++attempt) {
        auto got = store_.Get(key);
        if (!got) break;
        auto event = apiserver::ParseStoredObject(got->data);
        if (!event) break;
        std::int64_t count = 1;
        if (const Node* c = event->Find("count"); c && c->kind == Node::Kind::kNumber) {
          count = std::stoll(c->scalar);
        }
        event->Set("count", Node::Int(count + 1));
        event->Set("lastTimestamp", Node::String(e.time));
        auto updated = store_.Update(key, got->revision, [&](std::int64_t rv) {
          return apiserver::RenderStoredObject(*event, "Event", rv);
        });
        done = updated.has_value() || updated.error().kind != StoreError::Kind::kConflict;
      }
      if (done) continue;
    }
    Node event = ApiEvent(subject, e);
    event.Ensure("metadata").Set("uid", Node::String(kubelet::NewUuid()));
    event.Ensure("metadata").Set("creationTimestamp", Node::String(e.time));
    const std::string name = ApiEventName(subject, e);
    (void)store_.Create({"events", known.key.namespace_, name}, [&](std::int64_t rv) {
      return apiserver::RenderStoredObject(event, "Event", rv);
    });
    known.posted_events[similar] = name;
  }
  if (known.event_offset != before) {
    (void)WriteFileAtomically(dir / "events.published", std::to_string(known.event_offset) + "\n",
                              0600);
  }
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
        if (!deleted && deleted.error().kind == StoreError::Kind::kConflict) return;  // retried
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

Result<fs::path> NodeAgent::ContainerLogFile(const Node& pod, std::string_view container,
                                             bool previous) const {
  // A mirror pod's logs are its static pod's.
  std::string uid = Str(pod, {"metadata", "annotations", std::string(kConfigMirrorAnnotation)});
  if (uid.empty()) uid = Str(pod, {"metadata", "uid"});
  const std::string name = Str(pod, {"metadata", "name"});
  const std::string ns = Str(pod, {"metadata", "namespace"});
  // Run k of a container writes k.log, k being its restartCount when it started: the current
  // (or, backing off, the last) run's file is restartCount.log, the one before it the previous.
  int restarts = -1;
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const Node* statuses = pod.FindPath({"status", list});
    if (statuses == nullptr || !statuses->IsArray()) continue;
    for (const Node& s : statuses->items) {
      if (Str(s, {"name"}) != container) continue;
      restarts = static_cast<int>(IntAt(s, {"restartCount"}).value_or(0));
      const bool ran = s.FindPath({"state", "running"}) || s.FindPath({"state", "terminated"});
      if (!previous && !ran && !s.FindPath({"lastState", "terminated"})) {
        const std::string reason = Str(s, {"state", "waiting", "reason"});
        return Failure(fmt::format("container \"{}\" in pod \"{}\" is waiting to start: {}",
                                   container, name, reason));
      }
    }
  }
  // No status for it (a pod the node refused, or not synced yet): the kubelet's
  // validateContainerLogStatus says so in these words.
  if (restarts < 0) {
    return Failure(
        fmt::format("container \"{}\" in pod \"{}\" is not available", container, name));
  }
  if (previous) {
    if (restarts == 0) {
      return Failure(fmt::format("previous terminated container \"{}\" in pod \"{}\" not found",
                                 container, name));
    }
    restarts -= 1;
  }
  return cri::ContainerLogFile(cri::PodLogDirectory(options_.pod_logs_dir, ns, name, uid),
                                   container, restarts);
}

}  // namespace podlimits::nodeagent
