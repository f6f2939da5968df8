// Which cgroup hierarchies this machine has, read from /proc/self/mountinfo (proc(5)).
//
// The mode follows what the OCI runtimes conclude from the same machine (runtime.md §2.5):
// cgroup2 mounted at /sys/fs/cgroup is v2; otherwise v1 hierarchies with a cgroup2 mount
// somewhere else (usually /sys/fs/cgroup/unified) are hybrid, and v1 hierarchies alone are v1.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cgroups/error.h"

namespace podlimits::cgroups {

enum class CgroupMode { kV1, kHybrid, kV2 };
enum class CgroupVersion { kV1, kV2 };

// "v1", "hybrid", "v2".
std::string_view Name(CgroupMode mode);
std::string_view Name(CgroupVersion version);

// One line of /proc/<pid>/mountinfo, with the \ooo octal escapes of root, mount point and
// source decoded.
struct MountinfoEntry {
  int mount_id = 0;
  int parent_id = 0;
  std::string major_minor;
  std::string root;  // the directory of the filesystem that is mounted here
  std::filesystem::path mount_point;
  std::vector<std::string> mount_options;    // per-mount options
  std::vector<std::string> optional_fields;  // "shared:1", "master:2", ...
  std::string fs_type;
  std::string source;
  std::vector<std::string> super_options;  // per-superblock options
};

// Parses mountinfo text. A malformed line is an error naming `origin` and the line number.
Result<std::vector<MountinfoEntry>> ParseMountinfo(
    std::string_view text, const std::filesystem::path& origin = "/proc/self/mountinfo");

// A mounted cgroup v1 hierarchy.
struct V1Hierarchy {
  std::vector<std::string> controllers;  // bound controllers, e.g. {"cpu", "cpuacct"}
  std::string name;                      // "systemd" for a name=systemd hierarchy, else ""
  std::filesystem::path mount_point;
  std::string root;  // "/" unless a sub-tree is mounted (e.g. inside a container)
};

// The cgroup2 mount.
struct UnifiedMount {
  std::filesystem::path mount_point;
  std::string root;
  std::vector<std::string> super_options;  // e.g. {"rw", "nsdelegate", "memory_recursiveprot"}
  bool nsdelegate = false;
};

struct CgroupLayout {
  CgroupMode mode = CgroupMode::kV2;
  std::vector<V1Hierarchy> v1;
  std::optional<UnifiedMount> unified;
  // cgroup.controllers of the cgroup2 mount's root; empty when there is no cgroup2 mount.
  std::vector<std::string> unified_controllers;

  // The v1 hierarchy a controller is bound to, or null.
  const V1Hierarchy* V1For(std::string_view controller) const;
  bool UnifiedHas(std::string_view controller) const;
};

// The layout the mount table describes, without reading cgroup.controllers. With several mounts
// of one hierarchy, the one under /sys/fs/cgroup wins; with several cgroup2 mounts,
// /sys/fs/cgroup, then /sys/fs/cgroup/unified, then the first. No cgroup mount at all is an error.
Result<CgroupLayout> LayoutFromMountinfo(const std::vector<MountinfoEntry>& entries,
                                         const std::filesystem::path& origin);

// Reads and parses `proc_self_mountinfo`, then cgroup.controllers of the cgroup2 root. Mount
// points are looked up below `fs_root` ("/" on a real machine, a fixture directory in tests).
Result<CgroupLayout> DetectLayout(
    const std::filesystem::path& proc_self_mountinfo = "/proc/self/mountinfo",
    const std::filesystem::path& fs_root = "/");

}  // namespace podlimits::cgroups
