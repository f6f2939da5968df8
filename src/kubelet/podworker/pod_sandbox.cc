#include "kubelet/podworker/pod_sandbox.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "base/error.h"
#include "base/fs.h"
#include "kubelet/cm/cgroup_root_ledger.h"
#include "kubelet/cm/resource_config.h"

namespace podlimits::kubelet {

namespace fs = std::filesystem;

namespace {

// The cpu requests of the Burstable pods whose records are in `pods_dir` (every live run's, and
// a dead one's until it is cleaned up), except `except_uid`'s.
std::int64_t OtherBurstableCpuMilli(const fs::path& pods_dir, std::string_view except_uid) {
  std::int64_t total = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(pods_dir, ec)) {
    if (entry.path().filename() == except_uid) continue;
    auto record = ReadPodRecord(entry.path());
    if (record && record->qos == cgroups::QosClass::kBurstable) total += record->cpu_request_milli;
  }
  return total;
}

}  // namespace

PodSandbox::PodSandbox(const PodPlan& plan, std::vector<cgroups::ManagedHierarchy> hierarchies,
                       fs::path state_dir)
    : plan_(plan), state_dir_(std::move(state_dir)), cgroup_(std::move(hierarchies)) {}

Result<cgroups::AppliedPodCgroup> PodSandbox::Create(const PodRecord& record,
                                                     const std::vector<std::string>& image_names) {
  auto failed = [](Error error) {
    return std::unexpected(
        std::move(error).Wrap("Failed to create pod sandbox").Because(kFailedCreatePodSandBox));
  };
  // 1. The pod directory is this run's alone: a leftover of a dead run was cleaned up under the
  // uid's claim before, and one of a live run is never reached (its claim is held).
  if (mkdir(plan_.pod_dir.c_str(), 0700) != 0) {
    return failed(SystemError("mkdir", plan_.pod_dir, errno).error());
  }
  pod_dir_created_ = true;
  if (auto w = WritePodRecord(plan_.pod_dir, record); !w) return failed(std::move(w.error()));
  record_ = record;

  // 2. Held until the pod is gone: `image rm` cannot see overlays in our mount namespace.
  for (std::size_t i = 0; i < record.images.size(); ++i) {
    if (auto leased = LeaseImage(record.images[i], i < image_names.size()
                                                       ? image_names[i]
                                                       : record.images[i].string());
        !leased) {
      return std::unexpected(std::move(leased.error()));  // ErrImageNeverPull, as it is
    }
  }

  // 3. The parents are created under the ledger's lock, so no run sharing this state directory
  // removes one between our mkdirs.
  auto ledger = CgroupRootLedger::Lock(state_dir_);
  if (!ledger) return failed(std::move(ledger.error()));
  cgroups::PodCgroupPlan cgroup_plan = plan_.cgroup;
  if (!cgroup_plan.pod_files.empty() && cgroup_plan.qos == cgroups::QosClass::kBurstable) {
    // The kubelet's burstable cpu.weight covers all of the node's Burstable pods.
    cgroup_plan.qos_files = QosResourceFiles(
        cgroups::QosClass::kBurstable,
        record.cpu_request_milli + OtherBurstableCpuMilli(state_dir_ / "pods", plan_.uid));
  }
  auto applied = cgroup_.Apply(cgroup_plan);
  if (!applied) return failed(std::move(applied.error()));
  cgroup_applied_ = true;
  if (auto u = ledger->Update(applied->created_root_dirs, {}); !u) {
    return failed(std::move(u.error()));
  }
  return std::move(*applied);
}

Result<void> PodSandbox::AddContainer(const std::string& name, const std::string& id,
                                      const fs::path& image_dir, const std::string& image_name) {
  if (!pod_dir_created_) return Failure("the pod sandbox is not there");
  PodRecord record = record_;
  const PodRecord::Container container{name, id};
  if (std::find(record.containers.begin(), record.containers.end(), container) ==
      record.containers.end()) {
    record.containers.push_back(container);  // once, however often its start is tried
  }
  const bool new_image =
      std::find(record.images.begin(), record.images.end(), image_dir) == record.images.end();
  if (new_image) record.images.push_back(image_dir);
  if (auto w = WritePodRecord(plan_.pod_dir, record); !w) return w;
  record_ = std::move(record);
  if (!new_image) return {};
  return LeaseImage(image_dir, image_name);
}

Result<void> PodSandbox::LeaseImage(const fs::path& image_dir, const std::string& image_name) {
  auto lease = image::ImageLease::Acquire(image_dir, image::LeaseHolder{plan_.uid, plan_.pod_dir});
  if (!lease) {
    return std::unexpected(
        std::move(lease.error())
            .Wrap(fmt::format("Container image \"{}\" is not present with pull policy of Never",
                              image_name))
            .Because(kErrImageNeverPull));
  }
  leases_.push_back(std::move(*lease));
  return {};
}

Result<void> PodSandbox::Kill(const fs::path& cgroup) {
  if (!cgroup_applied_) return {};
  if (auto k = cgroup_.Kill(cgroup); !k) return Failure(k.error().Message());
  return {};
}

std::vector<std::string> PodSandbox::Teardown(bool keep_state) {
  std::vector<std::string> errors;
  if (cgroup_applied_) {
    auto ledger = CgroupRootLedger::Lock(state_dir_);
    if (!ledger) {
      errors.push_back(ledger.error().Message());
    } else {
      if (auto t = cgroup_.Teardown(ledger->entries()); !t) {
        errors.push_back(t.error().Message());
      } else {
        cgroup_applied_ = false;
        // The burstable total without this pod, as the kubelet updates it when a pod goes.
        if (!plan_.cgroup.pod_files.empty() && plan_.qos == cgroups::QosClass::kBurstable) {
          auto files = QosResourceFiles(cgroups::QosClass::kBurstable,
                                        OtherBurstableCpuMilli(state_dir_ / "pods", plan_.uid));
          if (auto u = cgroup_.UpdateQosFiles(files); !u) errors.push_back(u.error().Message());
        }
      }
      if (auto u = ledger->Update({}, cgroup_.removed_root_dirs()); !u) {
        errors.push_back(u.error().Message());
      }
    }
  }
  if (pod_dir_created_ && errors.empty() && !keep_state) {
    if (auto r = RemoveTree(plan_.pod_dir); !r) {
      errors.push_back(r.error().Message());
    } else {
      pod_dir_created_ = false;
    }
  }
  // The leases go last. While the pod directory stays, its holder records keep the images in
  // use for whatever may still run on them.
  if (!errors.empty() || keep_state) {
    for (image::ImageLease& lease : leases_) lease.KeepHolderRecord();
  }
  leases_.clear();
  return errors;
}

}  // namespace podlimits::kubelet
