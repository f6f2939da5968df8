// Which cgroup controllers `managedControllers` may name on this node.
//
// On cgroup v2 podlimits manages the unified tree, whatever the list says beyond pids. On a v1
// or hybrid node each name is a hierarchy podlimits creates pod cgroups in and shows to the OCI
// runtime, and there it manages the pids hierarchy only: it never creates or joins a cgroup in
// any other (memory, cpu, devices, ...), so any other name is a configuration error naming the
// field, found before anything is created. The file itself cannot say this (the same list is
// fine on v2): it is checked against the node's cgroup mode by `run` and `node-info`.
#pragma once

#include <expected>
#include <string>

#include "base/error.h"
#include "cgroups/detect.h"
#include "kubelet/config/node_config.h"

namespace podlimits::kubelet {

// `<source>: managedControllers[1]: Unsupported value: "memory": supported values: "pids" (on a
// cgroup hybrid node ...)`; nothing to say on v2.
Result<void> ValidateManagedControllers(const NodeConfig& config, cgroups::CgroupMode mode);

}  // namespace podlimits::kubelet
