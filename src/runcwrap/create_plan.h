// What podlimits-runc does for one create, decided before anything is touched: the spec edits,
// the pod cgroup's limits and what to read back afterwards. A request this node cannot hold is
// refused here with the message the kubelet would give for the field (seeds 001 and 003), so a
// container never starts with less than its pod asked for.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "cgroups/detect.h"
#include "codec/node.h"
#include "kubelet/cm/node_capabilities.h"
#include "runcwrap/bundle_request.h"
#include "runcwrap/pod_cgroup_limits.h"
#include "runcwrap/spec_edit.h"
#include "runcwrap/wrapper_config.h"

namespace podlimits::runcwrap {

// The node as the wrapper sees it.
struct NodeFacts {
  std::optional<cgroups::CgroupMode> cgroup_mode;  // nullopt: not read, or unreadable
  std::string cgroup_error;                        // why it was unreadable
  std::filesystem::path unified_root;              // the cgroup2 mount ("" without one)
  bool nsdelegate = false;
  kubelet::NodeCapabilities rlimits;  // cap_sys_resource, hard_limits, nr_open
};

// What `request` needs to know of the node: the mount table (a PID limit or a writable mount),
// this process's limits (ulimits).
NodeFacts ProbeNodeFacts(const BundleRequest& request);

struct CreatePlan {
  SpecEdits edits;
  // Set when the pod cgroup's files are to be written (and read back after the create).
  std::optional<std::filesystem::path> pod_cgroup;
  PodCgroupLimits pod_limits;
  std::vector<std::string> warnings;
};

// The one decision for podlimits-runc and the NRI plugin (src/nri): what `request` gets on
// `node`, or the refusal. The pod cgroup is found from `where`. A container gets its own ulimits
// and then each of config.default_ulimits whose name its own do not set; a default above this
// node's ceiling is refused with a message naming defaultUlimits.
Result<CreatePlan> PlanCreate(const BundleRequest& request, const PodCgroupLocation& where,
                              const NodeFacts& node, const WrapperConfig& config);

// podlimits-runc's form: the pod cgroup from the bundle's linux.cgroupsPath.
Result<CreatePlan> PlanCreate(const BundleRequest& request, const codec::Node& spec,
                              const NodeFacts& node, const WrapperConfig& config);

// Whether `config` has anything for a request with no podlimits annotation (its defaults).
bool ConfigAppliesWithoutAnnotations(const BundleRequest& request, const WrapperConfig& config);

}  // namespace podlimits::runcwrap
