// The mount namespace podlimits runs its OCI runtime in.
//
// crun and runc join every cgroup hierarchy they can see: on a v1 or hybrid machine that would
// put containers into hierarchies podlimits must never touch (memory, cpu, ...), and crun refuses
// a hybrid layout whose cgroup2 root lists any controller (reference/environment.md §1). So before
// it creates anything, `podlimits run` moves itself into a private mount namespace where
// /sys/fs/cgroup shows only the hierarchies podlimits manages: on v1/hybrid a fresh tmpfs over
// /sys/fs/cgroup with just those v1 hierarchies mounted at their usual places (the unified mount
// hidden, so runtimes see pure v1); on v2 nothing is hidden. The container overlays are mounted
// in that namespace too, so every mount podlimits makes dies with the process, whatever happens.
// Nothing in the machine's own mount namespace changes.
#pragma once

#include <expected>
#include <span>
#include <string>

#include "base/error.h"
#include "cgroups/hierarchies.h"

namespace podlimits::cri {

// unshare(CLONE_NEWNS), every mount made private (so nothing propagates back), then the cgroup
// view described above for `managed`. Must be called while the process is single-threaded.
// Errors name the operation and the path: `mount tmpfs on "/sys/fs/cgroup": Operation not
// permitted`. On failure after the unshare, the process stays in the new namespace (its mounts
// die with the process) and the error says so.
Result<void> EnterRuntimeMountNamespace(std::span<const cgroups::ManagedHierarchy> managed);

}  // namespace podlimits::cri
