// An rlimit value as podlimits' JSON output writes it (`run -o json`'s container limits,
// `node-info`'s ceilings and defaults): "unlimited" for RLIM_INFINITY, as /proc/<pid>/limits
// and ulimit say it, otherwise the number.
#pragma once

#include <cstdint>

#include "codec/node.h"

namespace podlimits::kubelet {

codec::Node RlimitJson(std::uint64_t value);

}  // namespace podlimits::kubelet
