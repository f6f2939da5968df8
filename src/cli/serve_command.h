// `podlimits serve`: the node's API for kubectl (apiserver/) and the node that runs its pods
// (nodeagent/).
#pragma once

#include <string>

#include "storage/object_store.h"

namespace podlimits::cli {

struct ServeFlags {
  std::string node_config;
  std::string data_dir = "/var/lib/podlimits";
  std::string listen = "127.0.0.1:6443";
  bool listen_beyond_loopback = false;
  std::string token_file;
  bool drain_on_exit = false;
  // How often the eviction manager looks at pid.available (the kubelet's evictionMonitoringPeriod,
  // 10s); a Go duration.
  std::string eviction_monitoring_period = "10s";
  // What serve checks of its store before it starts (storage/node_store.h).
  storage::IntegrityCheck store_integrity_check = storage::IntegrityCheck::kQuick;
  // Start on an empty store when the node's is lost or damaged: its objects are gone and the
  // pods it runs are stopped.
  bool reinitialize_store = false;
};

int ServeCommand(const ServeFlags& flags);

// `podlimits serve backup --data-dir DIR FILE`: a copy of the node's store, taken while serve
// runs or not (storage/store_backup.h).
struct ServeBackupFlags {
  std::string data_dir = "/var/lib/podlimits";
  std::string file;
};

int ServeBackupCommand(const ServeBackupFlags& flags);

// `podlimits pod-monitor`: one pod of a serving node (nodeagent/pod_monitor.h); started by
// `serve`, not by users.
struct PodMonitorFlags {
  std::string data_dir;
  std::string uid;
  std::string node_config;
  std::string host_ip;
};

int PodMonitorCommand(const PodMonitorFlags& flags);

}  // namespace podlimits::cli
