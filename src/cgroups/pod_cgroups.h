// The kubelet's pod cgroups, cgroupfs driver (pkg/kubelet/cm; runtime.md §6):
//
//   <cgroupRoot>/kubepods/pod<uid>              Guaranteed
//   <cgroupRoot>/kubepods/burstable/pod<uid>    Burstable
//   <cgroupRoot>/kubepods/besteffort/pod<uid>   BestEffort
//
// PodCgroup::Apply creates that path in every managed hierarchy and writes the pod's limits
// before any container process exists: kubepods' pids.max (node allocatable, when asked; the
// QoS cgroups stay unbounded), the pod's pids.max, and for a pod with a writable cgroup mount
// (v2 only) cgroup.max.descendants / cgroup.max.depth. Each value is read back after writing and
// returned as read. Teardown removes the pod cgroup Apply created (killing what still runs in it)
// and the shared parents nobody uses any more, whoever created them (cgroups/pod_parents.h); a
// failed Apply has already undone itself when it returns.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cgroups/detect.h"
#include "cgroups/error.h"
#include "cgroups/hierarchies.h"
#include "cgroups/pids.h"
#include "cgroups/qos.h"

namespace podlimits::cgroups {

// The bounds on the pod cgroup of a pod with a writable container (KEP-5474 defaults).
struct DescendantBounds {
  std::int64_t max_descendants = 250;
  std::int64_t max_depth = 50;
};

struct PodCgroupPlan {
  std::string pod_uid;
  QosClass qos = QosClass::kBestEffort;
  std::filesystem::path cgroup_root = "/";  // KubeletConfiguration cgroupRoot
  // kubepods' pids.max: the node's allocatable pids when pods are in enforceNodeAllocatable;
  // nullopt leaves kubepods' pids.max as it is.
  std::optional<std::int64_t> kubepods_pids_max;
  // The pod's effective pids.max; nullopt means no limit (the new cgroup keeps "max").
  std::optional<std::int64_t> pod_pids_max;
  // Set for a pod with a writable container; needs a managed cgroup v2 hierarchy.
  std::optional<DescendantBounds> writable;
  // cgroup v2 files of the pod cgroup ("cpu.weight", "cpu.max", "memory.max"); their
  // controllers are enabled down to it. Empty on a node that does not enforce cpu and memory.
  std::map<std::string, std::string> pod_files = {};
  // cgroup v2 files of kubepods (allocatable cpu and memory) and of the pod's QoS cgroup
  // (besteffort / burstable cpu.weight); empty when not enforced. Written by every run, as the
  // kubelet rewrites them whenever the node's pods change.
  std::map<std::string, std::string> kubepods_files = {};
  std::map<std::string, std::string> qos_files = {};
};

// Cgroup paths relative to a hierarchy root, e.g. "/kubepods/burstable/pod1234".
std::filesystem::path KubepodsCgroup(const std::filesystem::path& cgroup_root);
std::filesystem::path QosCgroup(const std::filesystem::path& cgroup_root, QosClass qos);
std::filesystem::path PodCgroupPath(const std::filesystem::path& cgroup_root, QosClass qos,
                                    std::string_view pod_uid);

// A limit file as read back after writing it.
struct ReadBack {
  std::filesystem::path file;  // absolute, e.g. /sys/fs/cgroup/pids/kubepods/pod1234/pids.max
  MaxValue value;              // nullopt: "max"
};

// What one hierarchy holds after Apply, read back from the kernel.
struct HierarchyReadBack {
  CgroupVersion version = CgroupVersion::kV2;
  std::filesystem::path pod_cgroup_dir;  // absolute, e.g. /sys/fs/cgroup/pids/kubepods/pod1234
  // Absent when the hierarchy has no pids controller (a v1 hierarchy of another controller, or a
  // v2 tree whose cgroup.controllers lacks pids while no pids limit was asked for).
  std::optional<ReadBack> kubepods_pids_max;  // also absent when it was not written
  std::optional<ReadBack> pod_pids_max;
  // Present when bounds were written (v2, writable container).
  std::optional<ReadBack> max_descendants;
  std::optional<ReadBack> max_depth;
  // Directories that existed before Apply in whose cgroup.subtree_control Apply wrote "+pids".
  // Teardown does not undo this, as the kubelet does not: other cgroups may rely on it by then.
  std::vector<std::filesystem::path> pids_enabled_in;
};

struct AppliedPodCgroup {
  std::filesystem::path cgroup;  // relative to each hierarchy root
  std::vector<HierarchyReadBack> hierarchies;
  // cgroupRoot's own directories Apply had to create, absolute, in every hierarchy: podlimits'
  // to remove once unused (any later run may, see Teardown).
  std::vector<std::filesystem::path> created_root_dirs;
};

class PodCgroup {
 public:
  explicit PodCgroup(std::vector<ManagedHierarchy> hierarchies);

  // Creates the pod cgroup (which must not exist yet) and its missing parents in every
  // hierarchy and writes the plan. A parent that another run removes meanwhile is created again.
  // On failure everything created so far is removed before returning the error (the rollback's
  // own failure, if any, is appended to the error's detail).
  Result<AppliedPodCgroup> Apply(const PodCgroupPlan& plan);

  // Takes over the pod cgroup of `plan` that an earlier run left behind (its podlimits is gone),
  // so that Teardown kills and removes it as if Apply had created it.
  void Adopt(const PodCgroupPlan& plan);

  // Kills every process in `cgroup` (relative, e.g. a container cgroup below the pod cgroup) and
  // below it, in every hierarchy, and waits until none is left; nothing to do where it does not
  // exist. A hostPID container's background processes outlive its init process; the runtime's
  // `delete` would spin on the busy cgroup.
  Result<void> Kill(const std::filesystem::path& cgroup);

  // Whether the OOM killer killed a process in `cgroup` (relative; memory.events of a cgroup v2
  // hierarchy with the memory controller). False where nothing reports it.
  bool OomKilled(const std::filesystem::path& cgroup) const;

  // Kills whatever still runs in the pod cgroup and removes it with every cgroup below it, then
  // tries the shared parents bottom-up (cgroups/pod_parents.h): the QoS cgroup and kubepods
  // whoever created them, cgroupRoot's own directories when this object created them or they
  // are among `owned_root_dirs` (absolute; those some earlier run created). Keeps going after a
  // failure and returns the first one. removed_root_dirs() says which cgroupRoot directories
  // went.
  Result<void> Teardown(std::span<const std::filesystem::path> owned_root_dirs = {});

  // Rewrites the QoS cgroup's files of the applied plan's class (cgroup v2 hierarchies whose
  // QoS cgroup still exists): the burstable total after a pod leaves.
  Result<void> UpdateQosFiles(const std::map<std::string, std::string>& files);
  const std::vector<std::filesystem::path>& removed_root_dirs() const { return removed_root_dirs_; }

  const std::vector<ManagedHierarchy>& hierarchies() const { return hierarchies_; }
  std::vector<ManagedHierarchy>& hierarchies() { return hierarchies_; }

 private:
  Result<HierarchyReadBack> ApplyTo(std::size_t index, const PodCgroupPlan& plan);

  std::vector<ManagedHierarchy> hierarchies_;
  std::optional<PodCgroupPlan> plan_;
  std::vector<bool> pod_owned_;  // per hierarchy: the pod cgroup there is ours to remove
  std::vector<std::filesystem::path> removed_root_dirs_;
};

}  // namespace podlimits::cgroups
