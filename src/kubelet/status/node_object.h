// The Node object the kubelet registers and keeps up to date (setNodeStatus): labels, addresses,
// capacity and allocatable, conditions, nodeInfo and the declared features.
//
//   capacity / allocatable  cpu, memory, ephemeral-storage, hugepages-*, pods (maxPods) as
//                           upstream, plus `pid` (podlimits' addition: upstream keeps pids out of
//                           NodeStatus; here capacity is the kernel's pid limit and allocatable
//                           what the pid reservations leave, as `node-info` reports them)
//   conditions              MemoryPressure, DiskPressure, PIDPressure, Ready with the kubelet's
//                           reasons and messages; lastTransitionTime kept while a status holds
//   declaredFeatures        the features this node declares (KEP-5328), also as the annotation
//                           podlimits.dev/declared-features for kubectl 1.32's describe
#pragma once

#include <string>
#include <string_view>

#include "codec/node.h"
#include "kubelet/cm/node_resources.h"
#include "kubelet/status/node_info.h"

namespace podlimits::kubelet {

struct NodeObjectInput {
  NodeInfo info;
  api::ResourceList capacity, allocatable;  // node_resources.h; pid and pods are added here
  std::string internal_ip;
  std::string kubelet_version;  // "v1.32.0+podlimits"
  std::int64_t max_pods = 110;
  bool pid_pressure = false;    // the eviction manager's PIDPressure (eviction_manager.h)
};

// The host's identity for nodeInfo: /etc/machine-id, the boot id, the product uuid, the kernel,
// /etc/os-release's PRETTY_NAME.
struct HostIdentity {
  std::string machine_id, boot_id, system_uuid, kernel_version, os_image;
};
HostIdentity ReadHostIdentity();

// `previous`: the stored node (or null), whose conditions keep their lastTransitionTime while
// their status holds. `now`: RFC 3339.
codec::Node NodeObject(const NodeObjectInput& input, const HostIdentity& host,
                     const codec::Node* previous, std::string_view now);

}  // namespace podlimits::kubelet
