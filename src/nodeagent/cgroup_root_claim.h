// One node per cgroup root. Two kubelets on one machine must not share <cgroupRoot>/kubepods:
// its pids.max is the node's pid allocatable, so a second node's pods would spend the first's
// (and the first's promise to its pods would not hold). `serve` therefore claims its cgroupRoot
// before it starts: a record in <claims_dir>/<hex of cgroupRoot> names the data directory of the
// node that owns it. A record naming another node that is still alive (its serve.lock held, or a
// pod monitor of it running) refuses the claim; a record of a node with nothing left alive is
// taken over. `run`'s one-shot pods are not nodes and claim nothing, but a run may not use a
// cgroupRoot a live node owns either: its pod cgroup's parents would rewrite that node's
// kubepods/pids.max (CheckCgroupRootUnclaimed).
#pragma once

#include <filesystem>
#include <string>

#include "base/error.h"

namespace podlimits::nodeagent {

inline constexpr const char* kCgroupRootClaimsDir = "/run/podlimits-nodes";

// Claims `cgroup_root` for the node whose data directory is `data_dir` (absolute). The error
// says which node holds it and what to set instead.
Result<void> ClaimCgroupRoot(const std::filesystem::path& claims_dir,
                             const std::filesystem::path& data_dir, const std::string& cgroup_root);

// For `podlimits run`: refuses `cgroup_root` while a live node owns it, with ClaimCgroupRoot's
// error for a second node. Only reads: it takes no claim and creates nothing (not even
// <claims_dir>), so concurrent runs on one root go on as before.
Result<void> CheckCgroupRootUnclaimed(const std::filesystem::path& claims_dir,
                                      const std::string& cgroup_root);

// Gives the claim up when it is this node's and none of its pods runs any more (a serve that
// drained, or had no pods): nothing is left in <claims_dir> for a node that is gone. A node
// whose pods go on after its serve stopped keeps its claim.
void ReleaseCgroupRoot(const std::filesystem::path& claims_dir,
                       const std::filesystem::path& data_dir, const std::string& cgroup_root);

// Whether the node of `data_dir` still runs anything: its serve, or a pod's monitor.
bool NodeAlive(const std::filesystem::path& data_dir);

}  // namespace podlimits::nodeagent
