// The pod cgroup's limits podlimits-runc writes for the sandbox of a pod (and checks again for
// each of its containers), before any process of the pod runs in it.
//
// The kubelet creates the pod cgroup and writes its pids.max (podPidsLimit) before it asks the
// CRI runtime for the sandbox; the runtime puts the sandbox and every container in a cgroup
// below it (linux.cgroupsPath). So the pod cgroup is the parent of a bundle's cgroupsPath:
//
//   cgroupfs  /kubepods/burstable/pod<uid>/<id>          -> /kubepods/burstable/pod<uid>
//   systemd   kubepods-burstable-pod<uid>.slice:cri-containerd:<id>
//             -> /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice
//
// pids.max becomes min(what the kubelet set, the pod's limit) (seed 002: a pod never gets more
// than the node allows), and a pod with a writable container gets cgroup.max.descendants and
// cgroup.max.depth no larger than the node's bounds. Each value is read back after writing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "cgroups/detect.h"
#include "cgroups/pids.h"

namespace podlimits::runcwrap {

// The pod cgroup (relative to the hierarchy root) a cgroupsPath is a child of. An empty,
// relative or root-level cgroupsPath is an error: such a container is in no pod cgroup.
Result<std::filesystem::path> PodCgroupOf(std::string_view cgroups_path);

// Where a pod's cgroup is to be found. podlimits-runc sees a bundle's linux.cgroupsPath, whose
// parent is the pod cgroup; the NRI plugin is told the sandbox's cgroup parent (CRI's
// LinuxPodSandboxConfig.cgroup_parent), which is the pod cgroup itself: "/kubepods/burstable/
// pod<uid>" (cgroupfs) or "kubepods-burstable-pod<uid>.slice" (systemd).
struct PodCgroupLocation {
  std::string cgroups_path;   // a container's cgroupsPath, or
  std::string cgroup_parent;  // the pod's cgroup parent (used when cgroups_path is empty)
};
Result<std::filesystem::path> PodCgroupAt(const PodCgroupLocation& where);

// A systemd slice unit's cgroup path ("a-b.slice" -> "/a.slice/a-b.slice").
Result<std::filesystem::path> SliceCgroupPath(std::string_view slice);

struct PodCgroupLimits {
  std::optional<std::int64_t> pids_max;         // the pod's limit
  std::optional<std::int64_t> max_descendants;  // writable pods only
  std::optional<std::int64_t> max_depth;
};

// What the pod cgroup holds afterwards, as read back.
struct PodCgroupState {
  std::filesystem::path dir;  // absolute
  cgroups::MaxValue pids_max;
  cgroups::MaxValue max_descendants;
  cgroups::MaxValue max_depth;
};

// Lowers the pod cgroup's files to `limits` where they are higher (never raises what the kubelet
// set) on the cgroup2 hierarchy mounted at `unified_root`, then reads them back. The pod cgroup
// must exist: the kubelet creates it, and a wrapper that created it would leave it behind.
Result<PodCgroupState> ApplyPodCgroupLimits(const std::filesystem::path& unified_root,
                                            const std::filesystem::path& pod_cgroup,
                                            const PodCgroupLimits& limits);

}  // namespace podlimits::runcwrap
