#include "serve/agent_options.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "apiserver/api_handler.h"
#include "kubelet/cm/node_resources.h"
#include "kubelet/cm/pid_capacity.h"
#include "kubelet/cm/pod_process_count.h"
#include "kubelet/status/node_info.h"
#include "kubelet/status/node_object.h"
#include "nodeagent/node_address.h"
#include "printers/human_duration.h"
#include "serve/data_dir.h"

namespace podlimits::serve {
namespace {

// The Node object as the kubelet would post it now.
auto NodeStatus(kubelet::Kubelet& node, std::string name) {
  return [&node, name = std::move(name), internal_ip = nodeagent::NodeInternalIp(),
          host = kubelet::ReadHostIdentity()](const codec::Node* previous, bool pid_pressure) {
    kubelet::NodeObjectInput input;
    input.pid_pressure = pid_pressure;
    input.max_pods = node.config().max_pods;
    auto tasks = kubelet::ReadTaskCount();
    input.info = kubelet::CollectNodeInfo(node.config(), node.capabilities(), node.pid_capacity(),
                                          tasks ? std::optional(*tasks) : std::nullopt, name);
    input.capacity = kubelet::NodeCapacity(node.config());
    input.allocatable = kubelet::NodeAllocatable(node.config());
    input.internal_ip = internal_ip;
    input.kubelet_version = std::string(apiserver::kServedGitVersion);
    return kubelet::NodeObject(input, host, previous, printers::FormatApiTime(
        std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())));
  };
}

std::optional<kubelet::PidObservation> ObservePids() {
  auto capacity = kubelet::ReadPidCapacity().Capacity();
  auto tasks = kubelet::ReadTaskCount();
  if (!capacity || !tasks) return std::nullopt;
  return kubelet::PidObservation{*capacity, *capacity - *tasks};
}

}  // namespace

nodeagent::NodeAgentOptions NodeAgentOptionsFor(const AgentSetup& setup, const Notice& notice) {
  const kubelet::NodeConfig& config = setup.node->config();
  nodeagent::NodeAgentOptions options;
  options.data_dir = setup.data_dir;
  options.node_name = nodeagent::NodeName();
  options.binary = setup.binary;
  options.pod_logs_dir = PodLogsDir(config, setup.data_dir);
  options.monitor_args = {"--host-ip", nodeagent::NodeInternalIp()};
  options.node_status = NodeStatus(*setup.node, options.node_name);
  options.eviction = kubelet::EvictionSettingsOf(config);
  for (const auto& t : options.eviction.thresholds) {
    if (t.signal == kubelet::kSignalPIDAvailable) continue;
    notice("warning: eviction threshold " + t.signal + "<" + t.text +
           " is not acted on (podlimits observes pid.available only)");
  }
  options.eviction_period = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::max(setup.eviction_monitoring_period,
               std::chrono::nanoseconds(std::chrono::milliseconds(100))));
  options.observe_pids = ObservePids;
  auto counter = std::make_shared<kubelet::PodProcessCounter>(config);
  options.pod_pids = [counter](const codec::Node& pod) { return counter->Read(pod); };
  options.metrics = &setup.node->metrics();
  options.max_pods = config.max_pods;
  options.static_pod_path = config.static_pod_path;
  options.gates = config.feature_gates;
  options.api = setup.api;
  return options;
}

nodeagent::UsageSamplerOptions UsageSamplerOptionsFor(const kubelet::Kubelet& node,
                                                      std::chrono::nanoseconds resolution) {
  nodeagent::UsageSamplerOptions options;
  options.node_name = nodeagent::NodeName();
  options.cgroup_root = node.config().cgroup_root;
  options.pod_level_resources = node.config().feature_gates.pod_level_resources;
  options.resolution = std::chrono::duration_cast<std::chrono::milliseconds>(resolution);
  return options;
}

}  // namespace podlimits::serve
