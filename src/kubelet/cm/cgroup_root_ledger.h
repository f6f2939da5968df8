// Which of cgroupRoot's own directories podlimits created, so that whichever run ends last can
// remove them once unused (cgroups/pod_parents.h: kubepods and the QoS cgroups are removed by any
// run; cgroupRoot is the operator's unless podlimits made it).
//
// <stateDirectory>/cgroup-roots lists them, one absolute directory per line. The file is also the
// lock: a run holds flock(LOCK_EX) on it while it creates the pod cgroup's parents and while it
// removes them, so runs sharing a state directory never race each other on those directories.
// (Runs with different state directories still may; PodCgroup::Apply retries a parent removed
// under it.)
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/fs.h"

namespace podlimits::kubelet {

class CgroupRootLedger {
 public:
  // Opens (creating it and the state directory) and locks <state_dir>/cgroup-roots, waiting for
  // another run to finish with it.
  static Result<CgroupRootLedger> Lock(const std::filesystem::path& state_dir);

  CgroupRootLedger(CgroupRootLedger&&) = default;
  CgroupRootLedger& operator=(CgroupRootLedger&&) = default;

  const std::vector<std::filesystem::path>& entries() const { return entries_; }

  // Records `created` and forgets `removed`, rewriting the file.
  Result<void> Update(const std::vector<std::filesystem::path>& created,
                      const std::vector<std::filesystem::path>& removed);

 private:
  CgroupRootLedger(UniqueFd fd, std::filesystem::path file,
                   std::vector<std::filesystem::path> entries)
      : fd_(std::move(fd)), file_(std::move(file)), entries_(std::move(entries)) {}

  UniqueFd fd_;
  std::filesystem::path file_;
  std::vector<std::filesystem::path> entries_;
};

// The ledger's lines as entries (blank lines and relative paths are dropped), and back.
std::vector<std::filesystem::path> ParseLedger(std::string_view text);
std::string FormatLedger(const std::vector<std::filesystem::path>& entries);

}  // namespace podlimits::kubelet
