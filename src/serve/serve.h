// `podlimits serve` as a library: a one-machine node that kubectl drives, its API over TLS
// (src/apiserver) and the node that runs its pods (src/nodeagent).
//
// Run starts it in this order, each step refusing to go on when it fails:
//   1. the node as the kubelet library probes it: a node config this machine cannot honour
//      stops serve here (a configuration error), before anything is written;
//   2. the data directory, made and locked (one serve per data directory), then the cgroup
//      root claimed (nodeagent/cgroup_root_claim.h: one node per cgroup root);
//   3. the store, checked (storage/node_store.h; `reinitialize_store` starts an empty one on
//      a lost or damaged store), before the certificates: a data directory whose store is lost
//      still shows the node by its pki/;
//   4. the PKI and kubeconfig (node_pki.h), then the snapshot of the node configuration the
//      pods' monitors read (node_config_snapshot.h);
//   5. SIGINT and SIGTERM blocked (read by Run, never delivered to the listener's threads);
//      the REST handler with the system namespaces, the node agent (adopting the pods that
//      ran on), the namespace controller, the store's maintenance, and last the listener;
// and, on SIGINT or SIGTERM, stops in this order: the listener (no request is being served),
// the namespace controller, the maintenance, the pods when `drain_on_exit`, the node agent
// (the pods' monitors run on, as containers outlive a kubelet restart), then the cgroup root's
// claim is given up when nothing of the node runs any more.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>

#include "storage/node_store.h"
#include "kubelet/kubelet.h"
#include "kubelet/config/node_config.h"
#include "serve/notice.h"

namespace podlimits::serve {

struct ServeOptions {
  // The node configuration as loaded, and the text it was loaded from (nullopt: the built-in
  // defaults); the text is what the pods' monitors read (node_config_snapshot.h).
  kubelet::NodeConfig node_config;
  std::optional<std::string> node_config_text;
  std::filesystem::path data_dir = "/var/lib/podlimits";
  std::string listen_host = "127.0.0.1";  // an IP address, without brackets
  std::uint16_t listen_port = 6443;
  // A file holding a bearer token accepted besides the admin certificate; "" for none.
  std::string token_file;
  bool drain_on_exit = false;
  // How often the eviction manager looks at pid.available (evictionMonitoringPeriod).
  std::chrono::nanoseconds eviction_monitoring_period = std::chrono::seconds(10);
  // How often the pods' usage is sampled (metrics-server's --metric-resolution): metrics.k8s.io's
  // window and the resolution of the peaks `podlimits recommend` reads.
  std::chrono::nanoseconds metric_resolution = std::chrono::seconds(15);
  storage::IntegrityCheck store_integrity_check = storage::IntegrityCheck::kQuick;
  bool reinitialize_store = false;
  // The PATH the kubelet library looks the runtime up in.
  std::string path_env;
  // What the start and the stop tell the operator, one line each.
  Notice notice = [](const std::string&) {};
};

// How Run ended without an error: the signal that stopped it.
struct Stopped {
  int signal = 0;
};

// Runs the node until SIGINT or SIGTERM. An error of kind kConfiguration is the configuration's
// (the node config asks what this machine cannot do); any other is the node's.
Result<Stopped> Run(const ServeOptions& options);

}  // namespace podlimits::serve
