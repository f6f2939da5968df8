// What a pod has on the node besides its containers, made before the first container and removed
// after the last (the kubelet's pod sandbox and pod cgroup):
//
//   1. <stateDirectory>/pods/<uid>/ (which must not exist: the caller holds the uid's claim and
//      has cleaned up any leftovers, pod_claim.h) with the pod's record (pod_record.h) in it,
//      before anything else, so that a later run can clean up after this one if it dies
//   2. a lease on each image (image_lease.h)
//   3. the pod cgroup and its limits (cgroups/pod_cgroups.h), its shared parents created and
//      removed under the state directory's cgroup-root ledger (cgroup_root_ledger.h)
//
// Teardown removes exactly what Create made, never a directory or cgroup it found.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"
#include "cgroups/hierarchies.h"
#include "cgroups/pod_cgroups.h"
#include "image/lease.h"
#include "kubelet/plan/pod_plan.h"
#include "kubelet/podworker/pod_record.h"

namespace podlimits::kubelet {

// The reasons (base/error.h) of Create's errors: the kubelet's event reasons.
inline constexpr std::string_view kFailedCreatePodSandBox = "FailedCreatePodSandBox";
inline constexpr std::string_view kErrImageNeverPull = "ErrImageNeverPull";

class PodSandbox {
 public:
  PodSandbox(const PodPlan& plan, std::vector<cgroups::ManagedHierarchy> hierarchies,
             std::filesystem::path state_dir);

  // Steps 1-3; on failure what was made so far stays for Teardown. `image_names[i]` is the name
  // the pod uses for record.images[i], for messages.
  // Errors carry kFailedCreatePodSandBox or kErrImageNeverPull, and the event's message.
  Result<cgroups::AppliedPodCgroup> Create(
      const PodRecord& record, const std::vector<std::string>& image_names);

  // A container added to the running pod (an ephemeral one), before it is created: the record
  // names it, so that a later run deletes it from the runtime if this one dies, and its image
  // (`image_dir`, named `image_name` in messages) is leased as the pod's others are.
  Result<void> AddContainer(const std::string& name, const std::string& id,
                            const std::filesystem::path& image_dir, const std::string& image_name);

  // Kills every process in `cgroup` (relative) in every managed hierarchy.
  Result<void> Kill(const std::filesystem::path& cgroup);
  // The OOM killer killed a process in `cgroup` (relative; cgroup v2 only).
  bool OomKilled(const std::filesystem::path& cgroup) const { return cgroup_.OomKilled(cgroup); }

  // Removes what Create made: the pod cgroup (killing what still runs in it) and the parents
  // nobody uses any more, the leases, and the pod directory (the containers' bundles are the
  // caller's to remove first). Returns the errors met. The pod directory, with its record and
  // the image holder records, is kept when there were any or when `keep_state` says the caller
  // failed to remove a container, so that a later run can finish the job.
  std::vector<std::string> Teardown(bool keep_state = false);

 private:
  // Holds `image_dir` for the pod until it is gone (`image rm` cannot see overlays in the
  // runtime's mount namespace); a missing image is ErrImageNeverPull naming `image_name`.
  Result<void> LeaseImage(const std::filesystem::path& image_dir, const std::string& image_name);

  const PodPlan& plan_;
  std::filesystem::path state_dir_;
  cgroups::PodCgroup cgroup_;
  PodRecord record_;  // as last written
  bool pod_dir_created_ = false;
  bool cgroup_applied_ = false;
  std::vector<image::ImageLease> leases_;
};

}  // namespace podlimits::kubelet
