// The cgroups between a hierarchy's root and a pod cgroup, and who removes them.
//
//   <cgroupRoot dirs...>/kubepods[/burstable|/besteffort]/pod<uid>
//
// kubepods and its QoS cgroups are shared by every pod on the node and belong to no single run:
// whichever run ends last must remove them, and it may not be the run that created them (two pods
// at once in one QoS class). So every run, at teardown, tries to rmdir them bottom-up whoever
// created them, and stops at the first one still in use (another pod's cgroup or a process in
// it). The directories of cgroupRoot itself are the operator's (the kubelet requires cgroupRoot
// to exist); podlimits creates them when they are missing, and removes one only when the caller
// says podlimits created it (RemoveUnusedParents' `owns_root_dir`).
//
// Creating the chain races with another run removing it: a parent can vanish between one
// mkdir and the next, so the caller retries the creation (mkdir's ENOENT) and writes kubepods'
// limit only once its pod cgroup pins the chain.
#pragma once

#include <filesystem>
#include <functional>
#include <vector>

#include "cgroups/error.h"
#include "cgroups/qos.h"
#include "cgroups/tree.h"

namespace podlimits::cgroups {

struct PodParents {
  std::vector<std::filesystem::path> root_dirs;  // cgroupRoot's directories, outermost first
  std::filesystem::path kubepods;                // relative, e.g. "kubepods"
  std::filesystem::path qos;                     // == kubepods for Guaranteed
};

PodParents ParentsOf(const std::filesystem::path& cgroup_root, QosClass qos);

// Tries to rmdir the QoS cgroup, kubepods, then the cgroupRoot directories `owns_root_dir`
// accepts (deepest first); stops at the first one in use or not owned. A parent that is already
// gone is skipped. Returns the cgroupRoot directories it removed (relative).
Result<std::vector<std::filesystem::path>> RemoveUnusedParents(
    CgroupTree& tree, const PodParents& parents,
    const std::function<bool(const std::filesystem::path&)>& owns_root_dir);

}  // namespace podlimits::cgroups
