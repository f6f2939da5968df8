// The pod PID limit in a LimitRange that a real cluster can hold.
//
// The apiserver refuses `pid` in a LimitRange: for the Pod and Container types a resource must
// be a standard container resource or a fully qualified (extended) name, and for any other type
// a standard resource name or a qualified one (ValidateLimitRange). A qualified name under the
// upstream `Pod` type would not do either: kube-apiserver's own LimitRanger checks a Pod item's
// `max` against the sum of the containers' limits of that resource, which no container sets, and
// refuses every pod. So on a cluster the PID defaults and bounds live in an item of podlimits'
// own type, which upstream validation accepts and upstream LimitRanger skips:
//
//   - type: podlimits.dev/Pod
//     default: {podlimits.dev/pid: "2048"}
//     max:     {podlimits.dev/pid: "4096"}
//
// The webhook reads such an item as the seeds' `type: Pod` item with `pid` (the same rules and
// messages follow). --config accepts both spellings.
#pragma once

#include <string_view>

#include "codec/node.h"
#include "field/field.h"

namespace podlimits::webhook {

inline constexpr std::string_view kClusterPodLimitType = "podlimits.dev/Pod";
inline constexpr std::string_view kClusterPidResource = "podlimits.dev/pid";

// Rewrites the podlimits.dev/Pod items of a LimitRange object in place. An item of that type
// with any resource but podlimits.dev/pid is an error naming it.
field::ErrorList TranslateClusterLimitRange(codec::Node& limit_range);

}  // namespace podlimits::webhook
