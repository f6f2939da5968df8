#include "serve/pod_monitor_start.h"

#include <cstdint>

#include "nodeagent/pod_monitor.h"
#include "serve/data_dir.h"
#include "serve/node_config_snapshot.h"

namespace podlimits::serve {

Result<int> RunPodMonitor(const PodMonitorStart& start) {
  auto config = ReadNodeConfigSnapshot(start.data_dir);
  if (!config) return std::unexpected(config.error());
  nodeagent::PodMonitorOptions options;
  options.data_dir = start.data_dir;
  options.uid = start.uid;
  options.config = std::move(*config);
  options.image_root = ImageRoot(start.data_dir);
  options.pod_logs_dir = PodLogsDir(options.config, start.data_dir);
  options.log_policy.max_size = static_cast<std::uint64_t>(options.config.container_log_max_size);
  options.log_policy.max_files = options.config.container_log_max_files;
  options.host_ip = start.host_ip;
  options.path_env = start.path_env;
  return nodeagent::RunPodMonitor(options);
}

}  // namespace podlimits::serve
