#include "kubelet/cm/pod_process_count.h"

#include "api/objects.h"
#include "api/qos.h"
#include "cgroups/detect.h"
#include "cgroups/pids.h"
#include "cgroups/pod_cgroups.h"

namespace podlimits::kubelet {
namespace {

std::optional<cgroups::ManagedHierarchy> PidsHierarchy(
    std::vector<cgroups::ManagedHierarchy> hierarchies) {
  for (auto& h : hierarchies) {
    if (h.version == cgroups::CgroupVersion::kV2 || h.HasV1Controller("pids")) return std::move(h);
  }
  return std::nullopt;
}

}  // namespace

PodProcessCounter::PodProcessCounter(const NodeConfig& config)
    : cgroup_root_(config.cgroup_root),
      pod_level_resources_(config.feature_gates.pod_level_resources) {
  auto layout = cgroups::DetectLayout();
  if (!layout) return;
  auto managed = cgroups::ManagedHierarchies(*layout, config.managed_controllers);
  if (managed) pids_ = PidsHierarchy(std::move(*managed));
}

PodProcessCounter::PodProcessCounter(const NodeConfig& config,
                                     std::vector<cgroups::ManagedHierarchy> hierarchies)
    : cgroup_root_(config.cgroup_root),
      pod_level_resources_(config.feature_gates.pod_level_resources),
      pids_(PidsHierarchy(std::move(hierarchies))) {}

std::optional<PodPids> PodProcessCounter::Read(const codec::Node& pod_object) const {
  if (!pids_) return std::nullopt;
  const api::Pod pod = api::ReadPod(pod_object);
  const cgroups::QosClass qos = api::ComputePodQos(pod, pod_level_resources_);
  const auto cgroup = cgroups::PodCgroupPath(cgroup_root_, qos, pod.metadata.uid);
  auto current = cgroups::ReadPidsCurrent(pids_->tree, cgroup);
  if (!current) return std::nullopt;
  auto max = cgroups::ReadPidsMax(pids_->tree, cgroup);
  if (!max) return std::nullopt;
  return PodPids{*current, *max};
}

}  // namespace podlimits::kubelet
