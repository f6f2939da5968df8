// The advice as a JSON patch (RFC 6902, `kubectl patch --type=json`) against a pod manifest:
//
//   spec.resources.limits.pid                              "N" (a Quantity string, seed 001)
//   spec.{initContainers,containers}[i].securityContext.ulimits[]   {name: nofile, soft, hard}
//
// A JSON patch rather than a strategic merge patch: kubectl computes a strategic patch with its
// own Go types, which have no `ulimits` (kubectl 1.32: `unable to find api field in struct
// SecurityContext for the json field "ulimits"`), and a merge patch would replace the whole
// containers list. Each op is written against what the manifest holds: a missing
// `resources`, `limits`, `securityContext` or `ulimits` is added whole, an existing nofile entry
// is replaced, other ulimits are kept; and every container the patch touches is first checked
// by name (a `test` op), so that the patch refuses a manifest whose containers are in another
// order rather than change the wrong one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "codec/node.h"

namespace podlimits::recommend {

struct PodLimits {
  std::optional<std::int64_t> pid_limit;
  std::map<std::string, std::int64_t> nofile;  // by container name; soft = hard
};

// The ops for `pod` (a Pod object or manifest); an empty array when there is nothing to set.
codec::Node LimitsJsonPatch(const codec::Node& pod, const PodLimits& limits);

}  // namespace podlimits::recommend
