// Dropping fields of disabled feature gates on create (pkg/api/pod's dropDisabledFields): the
// apiserver silently clears them; podlimits also says so, because a limit that vanishes without
// a word is exactly what its users must not get.
#pragma once

#include <string>
#include <vector>

#include "codec/node.h"
#include "validation/feature_gates.h"

namespace podlimits::validation {

// Removes disabled fields from a Pod tree; returns one warning per removed field.
std::vector<std::string> DropDisabledPodFields(codec::Node& pod, const FeatureGates& gates);

}  // namespace podlimits::validation
