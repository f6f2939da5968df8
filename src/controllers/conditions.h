// Status conditions as the workload controllers keep them (deployment/util's
// SetDeploymentCondition, the Job controller's): setting a condition whose status and reason
// are unchanged leaves it as it is; otherwise it moves to the end of the list, keeping its
// lastTransitionTime when only the reason or message changed.
#pragma once

#include <string>
#include <string_view>

#include "codec/node.h"

namespace podlimits::controllers {

struct Condition {
  std::string type, status, reason, message;
};

// The condition of `type` in `status.conditions`, or nullptr.
const codec::Node* FindCondition(const codec::Node& status, std::string_view type);
bool ConditionTrue(const codec::Node& status, std::string_view type);

// Deployment and ReplicaSet conditions carry lastUpdateTime and lastTransitionTime; Job
// conditions lastProbeTime and lastTransitionTime (`job` true).
void SetCondition(codec::Node& status, const Condition& c, std::string_view now, bool job = false);
void RemoveCondition(codec::Node& status, std::string_view type);

}  // namespace podlimits::controllers
