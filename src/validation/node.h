// Validation of Node objects, as the apiserver's node strategy does it: the taints a user (or
// kubectl taint) writes, and which parts of a Node an update may change.
#pragma once

#include "codec/node.h"
#include "field/field.h"

namespace podlimits::validation {

// validateNodeTaints: each taint's key a qualified name, its value a label value, its effect
// one of NoSchedule, PreferNoSchedule, NoExecute, and no two taints with the same key and
// effect. `node` is the Node object; nothing when it has no taints.
field::ErrorList ValidateNodeTaints(const codec::Node& node);

// The v1 Node's two podCIDR fields kept as one, as the API's conversion keeps them: podCIDRs
// from a lone podCIDR, podCIDR from podCIDRs' first.
void SyncNodePodCIDRs(codec::Node& node);

// spec.podCIDRs: each a valid CIDR, at most one per IP family.
field::ErrorList ValidateNodePodCIDRs(const codec::Node& node);

// ValidateNodeUpdate beyond metadata: an update may change labels, annotations, taints,
// unschedulable and the capacity, set providerID and podCIDR(s) when they were empty, and
// nothing else of the spec ("node updates may only change labels, taints, or capacity ...").
// The status is not compared: a Node's status is written through nodes/status.
field::ErrorList ValidateNodeUpdate(const codec::Node& node, const codec::Node& old);

}  // namespace podlimits::validation
