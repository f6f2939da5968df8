// Internal to node_config: turning each strictly decoded document into NodeConfig fields.
#pragma once

#include <string>
#include <vector>

#include "api/schema.h"
#include "codec/node.h"
#include "kubelet/config/node_config.h"

namespace podlimits::kubelet::config_internal {

// Reads the KubeletConfiguration fields podlimits interprets into `out`; returns every problem
// (empty when the document is valid).
std::vector<std::string> ApplyKubeletConfiguration(const codec::Node& tree, NodeConfig& out);

// The same for podlimits' NodeConfiguration.
std::vector<std::string> ApplyNodeConfiguration(const codec::Node& tree, NodeConfig& out);

// The field schema of NodeConfiguration, so it is decoded by the same strict decoder as every
// Kubernetes object (unknown fields and wrong types reported with their path).
const api::Schema& NodeConfigurationSchema();

}  // namespace podlimits::kubelet::config_internal
