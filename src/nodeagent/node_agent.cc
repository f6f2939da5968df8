// The node agent's start, stop and sync loop (node_agent.h): adoption at start, the watch of
// the store's pods, and the loop that hears the monitors' announcements and looks at every pod,
// the Node, the Lease, the static pods and eviction in turn. What each look does is in the
// files of its job: scheduler.cc, pod_sync.cc, status_publishing.cc, pod_events.cc,
// node_status.cc, node_lease.cc, static_pod_sync.cc, node_eviction.cc.
#include "nodeagent/node_agent.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>

#include "listwatch/stored_object.h"
#include "base/fs.h"
#include "cri/container_log.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/object_fields.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;

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
  if (!listed) return std::unexpected(listed.error());
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
      if (known.finished) continue;
      const auto dir = MonitorDirectory(options_.data_dir, uid);
      if (!LiveMonitorPid(dir)) continue;
      // Why, before the stop, so that no end of the pod can miss it (as for an eviction).
      if (auto w = WriteNodeShutdownMessage(dir); !w) Log("node shutdown: " + w.error().Message());
      if (!known.key.name.empty()) MarkDisruptionTarget(known, uid, std::string(kNodeShutdownMessage));
      // The pods' own grace periods, as a kubelet shutting down gives them.
      (void)StopMonitor(dir, std::nullopt);
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

}  // namespace podlimits::nodeagent
