// What keeps a long-running node's store bounded, as kube-apiserver's periodic etcd compaction
// and its --event-ttl do:
//
//   - the change log is compacted to its newest `keep_changes` revisions, as etcd is compacted
//     (a watch from before them gets 410 Gone and lists again; each object's newest entry at or
//     before the compaction stays, so a paged list can go on at any later revision: see
//     object_store.h);
//   - events whose lastTimestamp (or eventTime) is older than `event_ttl` (upstream's default:
//     one hour) are deleted.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "storage/object_store.h"

namespace podlimits::apiserver {

struct StoreMaintenanceOptions {
  std::int64_t keep_changes = 20000;
  std::chrono::seconds event_ttl{3600};
  std::chrono::seconds period{60};
  std::function<std::chrono::sys_seconds()> clock;  // unset: the system clock
};

class StoreMaintenance {
 public:
  StoreMaintenance(storage::ObjectStore& store, StoreMaintenanceOptions options);
  ~StoreMaintenance() { Stop(); }
  StoreMaintenance(const StoreMaintenance&) = delete;
  StoreMaintenance& operator=(const StoreMaintenance&) = delete;

  void Start();
  void Stop();
  // One round; returns how many events expired.
  int RunOnce();

 private:
  storage::ObjectStore& store_;
  StoreMaintenanceOptions options_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace podlimits::apiserver
