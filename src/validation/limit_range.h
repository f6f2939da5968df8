// LimitRange API validation: upstream's ValidateLimitRange (pkg/apis/core/validation), plus the
// podlimits extension for KEP-6063's `pid` resource in `type: Pod` items.
//
// The pid extension (active when PerPodPIDLimit and PodLevelResources are on):
//   * `pid` may appear only in `Pod` items, in `min`, `max` and `default`. `default` stays
//     forbidden in `Pod` items for every other resource; `pid` is the exception because a Pod
//     item's `default.pid` is how LimitRanger gives tenant pods a pid limit (KEP-6063 story 2).
//   * `pid` quantities there must be whole numbers >= 0. `min`/`max` may be any such number (they
//     bound a pod's limit); `default` must lie within the pod range 1024..16384, because it becomes
//     a pod's spec.resources.limits.pid and must pass pod validation.
//   * `pid` has no request, so `defaultRequest` (forbidden in Pod items anyway) and
//     `maxLimitRequestRatio` cannot name it.
//   * In a `Container` item, `pid` is rejected the way a container's resources.limits[pid] is:
//     `Invalid value: "pid": must be a standard resource for containers`. In any other item type
//     it is `Forbidden: may only be specified when `type` is 'Pod'`.
// With the gates off, `pid` is an unknown resource name, exactly as upstream treats it.
#pragma once

#include <string>
#include <string_view>

#include "api/objects.h"
#include "field/field.h"
#include "validation/feature_gates.h"

namespace podlimits::validation {

// Errors are in upstream's order; where upstream iterates a Go map (resource names within one
// item), podlimits uses sorted name order, so the output is deterministic.
field::ErrorList ValidateLimitRange(const api::LimitRange& limit_range,
                                    const FeatureGates& gates = {});

// The apiserver's Status.message for a rejected LimitRange (HTTP 422, reason Invalid):
// `LimitRange "NAME" is invalid: ERR` or `... is invalid: [ERR1, ERR2]`, duplicates removed.
std::string LimitRangeInvalidMessage(std::string_view name, const field::ErrorList& errors);

}  // namespace podlimits::validation
