// `podlimits pod-monitor`: one pod of a serving node (nodeagent/pod_monitor.h), started by the
// node agent, never by users. It runs on the node configuration its serve started with
// (node_config_snapshot.h) and keeps the pod's images and logs where that serve does
// (data_dir.h).
#pragma once

#include <expected>
#include <filesystem>
#include <string>

#include "base/error.h"

namespace podlimits::serve {

struct PodMonitorStart {
  std::filesystem::path data_dir;
  std::string uid;
  std::string host_ip;
  std::string path_env;
};

// The monitor's exit code once it ran (nodeagent::RunPodMonitor's), or why it could not start:
// the node configuration did not load.
Result<int> RunPodMonitor(const PodMonitorStart& start);

}  // namespace podlimits::serve
