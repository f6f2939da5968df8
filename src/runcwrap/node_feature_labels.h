// The node labels through which a podlimits-runc node declares what it can hold, for the
// nodeSelectors of the podlimits RuntimeClasses (deploy/webhook/50-runtimeclass.yaml): the
// features of KEP-5328's node.status.declaredFeatures that the runtime wrapper gives a node,
// judged as the wrapper judges a create (create_plan.h):
//
//   feature.podlimits.dev/ContainerUlimits       always (rlimits are set by any OCI runtime)
//   feature.podlimits.dev/PerPodPIDLimit         cgroup v2 with the pids controller
//   feature.podlimits.dev/SupportsCgroupOptions  cgroup v2 with nsdelegate
//
// `podlimits node-labels` (run by the installer DaemonSet) writes them with a JSON merge patch
// that also removes the ones the node no longer declares.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "cgroups/detect.h"

namespace podlimits::runcwrap {

inline constexpr const char* kFeatureLabelPrefix = "feature.podlimits.dev/";

// Label -> "true", or nullopt for a label to remove. `layout` null: the mount table could not be
// read, and only ContainerUlimits is declared.
std::map<std::string, std::optional<std::string>> NodeFeatureLabels(
    const cgroups::CgroupLayout* layout);

// {"metadata":{"labels":{...}}} with null for a removal (RFC 7386).
std::string LabelsMergePatch(const std::map<std::string, std::optional<std::string>>& labels);

}  // namespace podlimits::runcwrap
