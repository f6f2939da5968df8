// The process that runs one pod of `podlimits serve` (`podlimits pod-monitor`, started by the
// node agent, never by users): the kubelet library's RunPod for the pod in its monitor directory
// (monitor_files.h), with the containers' output written as CRI logs, every event and status
// change written to the directory and announced to the agent.
//
// It is the containers' parent and subreaper, in a session of its own: the agent (the daemon)
// can die and come back while the pod runs, as containers outlive a kubelet restart through
// their shims (conmon, containerd-shim). SIGTERM stops the pod with the grace period in the
// directory's `stop` file; the monitor exits once the pod is torn down.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "cri/container_log.h"
#include "kubelet/config/node_config.h"

namespace podlimits::nodeagent {

struct PodMonitorOptions {
  std::filesystem::path data_dir;
  std::string uid;
  kubelet::NodeConfig config;
  std::filesystem::path image_root;
  std::filesystem::path pod_logs_dir;
  cri::ContainerLogPolicy log_policy;
  std::string host_ip;
  std::string path_env;
  // The pod worker's backOffPeriod: how long a container with CreateContainerConfigError waits
  // before it is tried again (plus up to half of it, the worker's jitter).
  std::chrono::milliseconds config_retry{10000};
};

// The process's exit code: 0 once the pod ran (whatever its phase), 3 when the monitor itself
// could not work (its directory, lock or pod object).
int RunPodMonitor(const PodMonitorOptions& options);

}  // namespace podlimits::nodeagent
