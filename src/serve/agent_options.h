// What the node agent (nodeagent/node_agent.h) is given by serve: the node as the kubelet
// library probed it (its Node object, pid observations, each pod's pids), the eviction settings
// of the node config, where the monitors run from and what they read.
#pragma once

#include <chrono>
#include <filesystem>

#include "apiserver/rest_handler.h"
#include "kubelet/kubelet.h"
#include "nodeagent/node_agent.h"
#include "nodeagent/usage_sampler.h"
#include "serve/notice.h"

namespace podlimits::serve {

struct AgentSetup {
  kubelet::Kubelet* node = nullptr;  // probed; outlives the agent
  std::filesystem::path data_dir;    // absolute
  std::filesystem::path binary;      // podlimits itself, run as `pod-monitor`
  std::chrono::nanoseconds eviction_monitoring_period{std::chrono::seconds(10)};
  apiserver::RestHandler* api = nullptr;
};

// The agent's options. A threshold of a signal other than pid.available is said (through
// `notice`) to be parsed only, so that nobody believes memory or disk pressure evicts here.
nodeagent::NodeAgentOptions NodeAgentOptionsFor(const AgentSetup& setup, const Notice& notice);

// The usage sampler's options for the node `node` (its name, cgroup root, gates).
nodeagent::UsageSamplerOptions UsageSamplerOptionsFor(const kubelet::Kubelet& node,
                                                      std::chrono::nanoseconds resolution);

}  // namespace podlimits::serve
