// A condition's lastTransitionTime as the kubelet keeps it (pod and node conditions alike): the
// previous one while the condition's status holds, `now` once it changes.
#pragma once

#include <string>
#include <string_view>

#include "codec/node.h"

namespace podlimits::kubelet {

// `conditions`: the previously published list (or null).
std::string ConditionTransitionTime(const codec::Node* conditions, std::string_view type,
                                    std::string_view status, std::string_view now);

}  // namespace podlimits::kubelet
