// API defaulting of a LimitRange (pkg/apis/core/v1/defaults.go), applied to the stored tree before
// validation, as kube-apiserver does on decode.
#pragma once

#include "codec/node.h"

namespace podlimits::api {

// For every `Container` item (SetDefaults_LimitRangeItem):
//   default[k]        <- max[k]      when default lacks k
//   defaultRequest[k] <- default[k]  when defaultRequest lacks k (including the copied max)
//   defaultRequest[k] <- min[k]      when defaultRequest still lacks k
// Other item types get no such defaults. Then every ResourceList of every item is rounded up to
// milli precision (SetDefaults_ResourceList), rewriting only the values that rounding changes,
// in canonical form. Edits `limit_range` in place; maps are created only when something is added
// (upstream's empty maps are omitted on the wire).
void SetDefaultsLimitRange(codec::Node& limit_range);

}  // namespace podlimits::api
