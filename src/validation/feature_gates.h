// The feature gates podlimits honours, as kube-apiserver's --feature-gates sets them.
#pragma once

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"

namespace podlimits::validation {

struct FeatureGates {
  // All on by default in podlimits (the seeds' features are what it exists to enforce).
  bool container_ulimits = true;    // ContainerUlimits (KEP-5758)
  bool per_pod_pid_limit = true;    // PerPodPIDLimit (KEP-6063)
  bool pod_level_resources = true;  // PodLevelResources (KEP-2837)
  bool cgroup_options = true;       // CgroupOptions (KEP-5474)

  // Parses "K=V,K=V" on top of the defaults. Unknown gates, bad booleans and inconsistent
  // combinations (PerPodPIDLimit without PodLevelResources) are errors.
  static Result<FeatureGates> Parse(std::string_view spec);
  // Applies a map form (KubeletConfiguration.featureGates).
  static Result<FeatureGates> FromMap(const std::map<std::string, bool>& gates);

  // The consistency rule, checked by Parse/FromMap.
  Result<void> Validate() const;
};

}  // namespace podlimits::validation
