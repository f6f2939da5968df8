#include "runcwrap/create_plan.h"

#include <fmt/format.h>

#include "field/field.h"
#include "kubelet/cm/rlimit_ceiling.h"

namespace podlimits::runcwrap {
namespace {

std::string ModeText(const NodeFacts& node) {
  return node.cgroup_mode ? std::string(cgroups::Name(*node.cgroup_mode)) : "unknown";
}

// Seed 003's refusals of a writable cgroup mount.
std::optional<std::string> WritableProblem(const NodeFacts& node) {
  if (node.cgroup_mode != cgroups::CgroupMode::kV2) {
    return "CgroupOptions.MountMode=Writable requires cgroup v2";
  }
  if (!node.nsdelegate) {
    return "CgroupOptions.MountMode=Writable requires the cgroup2 filesystem to be mounted with "
           "nsdelegate";
  }
  return std::nullopt;
}

// A container holding the node's default ulimits that `c` does not set itself (none: no
// securityContext), so that the ceilings are checked by the same GrantUlimits.
api::Container DefaultsLeftOut(const api::Container& c, const WrapperConfig& config) {
  api::Container out;
  out.name = c.name;
  for (const api::Ulimit& d : config.default_ulimits) {
    bool own = false;
    if (c.security_context && c.security_context->ulimits) {
      for (const auto& u : *c.security_context->ulimits) own = own || u.name == d.name;
    }
    if (own) continue;
    if (!out.security_context) out.security_context.emplace().ulimits.emplace();
    out.security_context->ulimits->push_back(d);
  }
  return out;
}

}  // namespace

NodeFacts ProbeNodeFacts(const BundleRequest& request) {
  NodeFacts node;
  // Each create pays only for what its request reads: the mount table for a PID limit or a
  // writable mount, this process's limits for ulimits.
  if (request.pod_pid_limit || request.writable || request.pod_has_writable) {
    if (auto layout = cgroups::DetectLayout()) {
      node.cgroup_mode = layout->mode;
      if (layout->unified) {
        node.unified_root = layout->unified->mount_point;
        node.nsdelegate = layout->unified->nsdelegate;
      }
    } else {
      node.cgroup_error = layout.error().Message();
    }
  }
  if (request.container) {
    kubelet::ProbeRlimits(node.rlimits);
    node.rlimits.rlimit_holder = kubelet::RlimitHolder::kRuncWrapper;
  }
  return node;
}

bool ConfigAppliesWithoutAnnotations(const BundleRequest& request, const WrapperConfig& config) {
  return request.role == BundleRole::kContainer && !config.default_ulimits.empty();
}

Result<CreatePlan> PlanCreate(const BundleRequest& request, const codec::Node& spec,
                              const NodeFacts& node, const WrapperConfig& config) {
  return PlanCreate(request,
                    PodCgroupLocation{codec::StringOf(spec.FindPath({"linux", "cgroupsPath"})), {}},
                    node, config);
}

Result<CreatePlan> PlanCreate(const BundleRequest& request, const PodCgroupLocation& where,
                              const NodeFacts& node, const WrapperConfig& config) {
  CreatePlan plan;
  plan.warnings = request.warnings;
  const std::string subject = request.Subject();

  if ((request.pod_pid_limit || request.writable || request.pod_has_writable) &&
      !node.cgroup_mode) {
    return Failure(fmt::format("{}: this node's cgroup layout could not be read: {}", subject,
                               node.cgroup_error));
  }
  if (request.pod_pid_limit) {
    if (node.cgroup_mode != cgroups::CgroupMode::kV2) {
      // Seed 001's refusal, word for word (a hybrid node keeps pids on v1).
      return Failure(fmt::format(
          "per-pod PID limit requires cgroupsv2, but this node is running cgroupsv1; pod {} "
          "specifies spec.resources.limits.pid",
          request.pod_name));
    }
    plan.pod_limits.pids_max = *request.pod_pid_limit;
  }
  const bool bounds = request.role == BundleRole::kSandbox ? request.pod_has_writable
                                                           : request.writable;
  if (bounds || request.writable) {
    if (auto problem = WritableProblem(node)) {
      return Failure(fmt::format("{}: {}", subject, *problem));
    }
  }
  if (bounds) {
    plan.pod_limits.max_descendants = config.max_descendants;
    plan.pod_limits.max_depth = config.max_depth;
  }
  if (plan.pod_limits.pids_max || plan.pod_limits.max_descendants) {
    auto pod = PodCgroupAt(where);
    if (!pod) return std::unexpected(std::move(pod.error()).Wrap(subject));
    if (node.unified_root.empty()) {
      return Failure(fmt::format("{}: no cgroup2 mount on this node (cgroup mode {})", subject,
                                 ModeText(node)));
    }
    plan.pod_cgroup = *pod;
  }

  plan.edits.writable_cgroup = request.writable;
  if (request.container) {
    kubelet::UlimitGrant grant = kubelet::GrantUlimits(*request.container, node.rlimits);
    if (grant.rejection) return Failure(fmt::format("{}: {}", subject, *grant.rejection));
    plan.edits.rlimits = std::move(grant.granted);
    for (auto& e : grant.warnings) plan.warnings.push_back(e.reason + ": " + e.message);
    auto defaults = DefaultsLeftOut(*request.container, config);
    if (defaults.security_context) {
      kubelet::UlimitGrant granted = kubelet::GrantUlimits(defaults, node.rlimits);
      if (granted.rejection) {
        return Failure(fmt::format("{}: defaultUlimits of {}: {}", subject,
                                   config.source.string(), *granted.rejection));
      }
      for (auto& g : granted.granted) plan.edits.rlimits.push_back(std::move(g));
    }
  }
  return plan;
}

}  // namespace podlimits::runcwrap
