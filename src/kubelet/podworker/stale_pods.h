// Cleaning up after a `podlimits run` that died without tearing down (SIGKILL, a crash, the
// machine's OOM killer): its containers still run, its cgroups, bundles and runtime state stay.
//
// A pod directory in <stateDirectory>/pods whose uid lock nobody holds is such a leftover
// (pod_claim.h). The run that finds one claims it and, from its record (pod_record.h):
//   1. kills every process in the pod cgroup, in every managed hierarchy, then gives back its
//      pod network address and portmap rules (pod_network.h) from the record of them
//   2. deletes each container from the OCI runtime that created it (`delete --force`, with that
//      runtime's --root): the runtime's state goes
//   3. unmounts and removes the bundles
//   4. removes the pod cgroup and the shared parents nobody uses any more
//   5. removes the pod directory and the pod's image lease records (image_lease.h)
// Whatever fails is reported and the pod directory kept, so a later run tries again. A pod whose
// lock is held belongs to a live run and is never touched.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cgroups/hierarchies.h"
#include "kubelet/events/events.h"
#include "kubelet/podworker/pod_claim.h"

namespace podlimits::kubelet {

struct StalePodEnvironment {
  std::filesystem::path state_dir;
  // Fresh trees of the hierarchies podlimits manages, one set per pod cleaned up.
  std::function<std::vector<cgroups::ManagedHierarchy>()> hierarchies;
  std::vector<std::filesystem::path> cni_bin_dirs;  // where the CNI plugins are
};

struct StalePodCleanup {
  std::string uid;
  std::string pod;  // "name_namespace(uid)", or the uid when the record could not be read
  std::optional<PodOwner> previous_owner;
  std::vector<std::string> removed;  // what went, in words
  std::vector<std::string> errors;   // what did not; the pod directory stays then

  bool ok() const { return errors.empty(); }
  // A Warning event: OrphanedPodCleanedUp, or OrphanedPodCleanupFailed with the errors.
  Event ToEvent() const;
};

// Cleans up the leftovers of the uid `claim` holds (claim.leftovers()).
StalePodCleanup CleanUpStalePod(const PodClaim& claim, const StalePodEnvironment& env);

// Every stale pod in <state_dir>/pods but `skip_uid` (the caller's own, claimed already).
std::vector<StalePodCleanup> CleanUpStalePods(const StalePodEnvironment& env,
                                              const std::string& skip_uid);

}  // namespace podlimits::kubelet
