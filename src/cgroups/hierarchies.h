// The cgroup hierarchies podlimits manages on this machine.
//
// On cgroup v2 that is the unified tree. On v1 and hybrid machines it is only the hierarchies of
// the controllers podlimits is told to manage (by default just pids): podlimits never creates or
// joins a cgroup in any other v1 hierarchy (memory, cpu, ...).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "cgroups/detect.h"
#include "cgroups/error.h"
#include "cgroups/tree.h"

namespace podlimits::cgroups {

struct ManagedHierarchy {
  CgroupVersion version = CgroupVersion::kV2;
  // v1: the controllers bound to this hierarchy; v2: empty (the tree's cgroup.controllers says
  // what is available).
  std::vector<std::string> controllers;
  CgroupTree tree;

  bool HasV1Controller(std::string_view controller) const;
};

// On v2, the cgroup2 mount. On v1/hybrid, for each of `controllers`, the v1 hierarchy it is
// bound to, or the cgroup2 mount when it is available there instead (a hybrid machine that binds
// it to no v1 hierarchy); each hierarchy appears once. A controller that is neither is an error,
// and so is any controller but pids, or a pids hierarchy shared with other controllers: on
// v1/hybrid podlimits never creates or joins a cgroup in any other hierarchy
// (node/managed_controllers.h rejects such a configuration first, naming the field).
Result<std::vector<ManagedHierarchy>> ManagedHierarchies(const CgroupLayout& layout,
                                                         std::span<const std::string> controllers);
Result<std::vector<ManagedHierarchy>> ManagedHierarchies(const CgroupLayout& layout);  // {"pids"}

}  // namespace podlimits::cgroups
