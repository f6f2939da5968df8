// One cgroup hierarchy, seen from its root directory: create, write, read, kill, remove.
//
// The root is a real hierarchy (a cgroup v1 mount such as /sys/fs/cgroup/pids, or the cgroup2
// mount) or, in unit tests, a plain temporary directory. Paths given to a tree are cgroup paths
// relative to that root ("/kubepods/burstable" and "kubepods/burstable" are the same); "." and
// ".." components are refused, so no call can reach outside the root.
//
// A tree remembers exactly which directories it created, and Teardown removes only those,
// deepest first. Directories it merely reused (say a `kubepods` another pod created) are never
// removed, and a shared directory it created is left in place when some other cgroup has been
// created inside it meanwhile (see left_in_use()).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cgroups/error.h"

namespace podlimits::cgroups {

class CgroupTree {
 public:
  // How Create treats the directory it is asked for (its missing parents are always created as
  // kShared).
  enum class CreateMode {
    // Reuse it when it exists. Teardown removes it only if this tree created it and no child
    // cgroup is left in it: parents such as kubepods and its QoS cgroups are shared by pods.
    kShared,
    // It must not exist yet (mkdir fails with EEXIST otherwise). This tree then owns the whole
    // subtree: Teardown kills every process in it and removes every cgroup below it too, e.g.
    // the container cgroups an OCI runtime left behind when it crashed. Used for a pod cgroup.
    kExclusive,
  };

  // A real cgroup hierarchy rooted at `root`. Removing a cgroup is a plain rmdir(2): the kernel
  // drops a cgroup's interface files with it, but refuses (EBUSY) while it has processes or
  // child cgroups.
  static CgroupTree OnCgroupfs(std::filesystem::path root);

  // A plain directory standing in for a hierarchy (unit tests, unprivileged). Every directory
  // Create makes gets `control_files` (name -> initial contents), as the kernel gives a new cgroup
  // its interface files; removing such a directory unlinks exactly those files, then rmdirs it.
  // Nothing else differs, so a write to a file the "kernel" did not provide fails with ENOENT as
  // it would on cgroupfs. A plain directory has no processes: Kill refuses to signal the pids a
  // test wrote into a fake cgroup.procs.
  static CgroupTree OnPlainDirectory(std::filesystem::path root,
                                     std::map<std::string, std::string> control_files);

  CgroupTree(CgroupTree&&) = default;
  CgroupTree& operator=(CgroupTree&&) = default;
  CgroupTree(const CgroupTree&) = delete;
  CgroupTree& operator=(const CgroupTree&) = delete;

  const std::filesystem::path& root() const { return root_; }
  bool on_cgroupfs() const { return cgroupfs_; }

  // root / cgroup, or an error for a path with "." or ".." components.
  Result<std::filesystem::path> Path(const std::filesystem::path& cgroup) const;

  // mkdir -p, remembering each directory this call created.
  Result<void> Create(const std::filesystem::path& cgroup, CreateMode mode = CreateMode::kShared);

  // Writes `value` to the control file `file` of `cgroup` (one write(2), the file must exist).
  Result<void> Write(const std::filesystem::path& cgroup, std::string_view file,
                     std::string_view value);
  // The control file's contents as the kernel returns them (trailing newline included).
  Result<std::string> Read(const std::filesystem::path& cgroup, std::string_view file) const;

  // The processes in `cgroup` itself (cgroup.procs), not in its descendants.
  Result<std::vector<pid_t>> Procs(const std::filesystem::path& cgroup) const;

  // Kills every process in `cgroup` and its descendants and waits until none is left.
  //
  // On cgroup v2 with a cgroup.kill file (Linux 5.14+) one write of "1" kills the whole subtree
  // atomically, including processes that are forking at that moment. Elsewhere (cgroup v1, older
  // kernels) there is no atomic way: the pids are read from cgroup.procs and sent SIGKILL, and
  // this repeats until cgroup.procs is empty everywhere, because a process may fork between the
  // read and the signal, and its child is only listed on the next read. (Freezing first would
  // close that race, but on v1 the freezer is another hierarchy, which podlimits never touches.)
  // Each pid is signalled through a pidfd that is opened first and used only if the pid is still
  // listed in the cgroup afterwards, so a pid that was recycled meanwhile is never signalled.
  // Gives up after a few seconds, naming the pids that remain. Refuses to signal pid 1 or the
  // calling process.
  Result<void> Kill(const std::filesystem::path& cgroup);

  // rmdir(2) of one cgroup that has no child cgroups. While processes are still in it (EBUSY),
  // kills them and retries for a short while before reporting EBUSY.
  Result<void> Remove(const std::filesystem::path& cgroup);

  // What RemoveIfUnused found.
  enum class Removal {
    kRemoved,  // it was empty and is gone now
    kInUse,    // a child cgroup or a process is still in it (EBUSY / ENOTEMPTY): left alone
    kAbsent,   // it did not exist (any more)
  };

  // One rmdir(2) of a cgroup whoever created it, for shared parents such as kubepods and its QoS
  // cgroups: removed when nothing uses it, left alone (kInUse) when a child cgroup or a process
  // is still in it. Never kills and never retries. On a plain directory the "kernel's" control
  // files are unlinked first, but only when the directory holds nothing else.
  Result<Removal> RemoveIfUnused(const std::filesystem::path& cgroup);

  // Kills every process in `cgroup` and below and removes the whole subtree, deepest first,
  // whoever created it; nothing to do when it does not exist. For a cgroup the caller owns
  // outright, such as a pod cgroup a dead run left behind.
  Result<void> RemoveTree(const std::filesystem::path& cgroup);

  // Removes every directory this tree created, deepest first; see CreateMode. Keeps going after
  // a failure and returns the first one; what failed stays recorded, so a later call retries it.
  Result<void> Teardown();

  // The directories this tree created and has not removed yet, in creation order.
  std::vector<std::filesystem::path> created() const;
  // Shared directories this tree created that Teardown left because other cgroups were created
  // inside them meanwhile: they now belong to whoever uses them.
  const std::vector<std::filesystem::path>& left_in_use() const { return left_in_use_; }

 private:
  struct Created {
    std::filesystem::path cgroup;  // relative
    CreateMode mode;
  };

  CgroupTree(std::filesystem::path root, bool cgroupfs,
             std::map<std::string, std::string> control_files);

  // `owned`: the caller owns the directory even though this tree did not create it, so a plain
  // directory's control files go too.
  Result<void> RemoveOne(const std::filesystem::path& absolute, bool owned = false);
  Result<void> RemoveSubtree(const std::filesystem::path& absolute, bool owned = false);
  Result<void> UnlinkControlFiles(const std::filesystem::path& absolute);
  Result<void> KillMembers(const std::filesystem::path& absolute, bool recursive);
  Result<void> SignalMembers(const std::filesystem::path& absolute);

  std::filesystem::path root_;
  bool cgroupfs_;
  std::map<std::string, std::string> control_files_;
  std::vector<Created> created_;
  std::vector<std::filesystem::path> left_in_use_;
};

// Parses cgroup.procs text: one decimal pid per line.
Result<std::vector<pid_t>> ParseProcs(std::string_view text, const std::filesystem::path& file);

}  // namespace podlimits::cgroups
