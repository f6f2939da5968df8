#include "kubelet/podworker/stale_pods.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "base/fs.h"
#include "cgroups/pod_cgroups.h"
#include "cri/oci_runtime.h"
#include "image/lease.h"
#include "image/overlay.h"
#include "kubelet/cm/cgroup_root_ledger.h"
#include "kubelet/network/pod_network.h"
#include "kubelet/podworker/pod_record.h"

namespace podlimits::kubelet {
namespace {

namespace fs = std::filesystem;

std::string OwnerText(const std::optional<PodOwner>& owner) {
  return owner ? fmt::format("podlimits pid {}", owner->pid) : std::string("a podlimits process");
}

// The container bundles of a pod directory: its subdirectories.
std::vector<fs::path> Bundles(const fs::path& pod_dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(pod_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) out.push_back(it->path());
  }
  return out;
}

void CleanUpFromRecord(const PodRecord& record, const fs::path& pod_dir,
                       const StalePodEnvironment& env, StalePodCleanup& out) {
  cgroups::PodCgroupPlan plan;
  plan.pod_uid = record.uid;
  plan.qos = record.qos;
  plan.cgroup_root = record.cgroup_root;
  const fs::path pod_cgroup = cgroups::PodCgroupPath(plan.cgroup_root, plan.qos, plan.pod_uid);
  cgroups::PodCgroup cgroup(env.hierarchies());
  cgroup.Adopt(plan);

  // 1. Nothing of the pod may run on: its processes go first, hostPID strays included.
  if (auto killed = cgroup.Kill(pod_cgroup); !killed) {
    out.errors.push_back(killed.error().Message());
    return;  // never delete state under processes that still run
  }
  out.removed.push_back("its processes killed");

  // 1b. The pod network's address and rules: the namespace went with the processes, the
  // plugins give back what they handed out (pod_network.h).
  std::error_code ec;
  if (fs::exists(pod_dir / kNetworkRecordFile, ec)) {
    if (auto down = TearDownPodNetwork(pod_dir, env.cni_bin_dirs, false); !down) {
      out.errors.push_back(down.error().Message());
    } else {
      out.removed.push_back("its pod network address released");
    }
  }

  // 2. The runtime's state, with the runtime and --root the dead run used.
  cri::OciRuntimeClient client(
      record.runtime == "runc" ? cri::RuntimeKind::kRunc : cri::RuntimeKind::kCrun,
      record.runtime_binary, record.runtime_root);
  std::vector<std::string> deleted;
  for (const auto& c : record.containers) {
    if (auto d = client.Delete(c.id); !d) {
      out.errors.push_back(d.error().Message());
    } else {
      deleted.push_back(c.name);
    }
  }
  if (!deleted.empty()) {
    out.removed.push_back(
        fmt::format("containers {} deleted from {}", fmt::join(deleted, ", "), record.runtime));
  }

  // 3. The bundles: overlays unmounted (the dead run's mount namespace took its own mounts
  // along; one that shows here is unmounted), then removed.
  for (const fs::path& bundle : Bundles(pod_dir)) {
    if (auto r = image::ReleaseContainerRootfs(bundle); !r) {
      out.errors.push_back(r.error().Message());
      continue;
    }
    if (auto r = RemoveTree(bundle); !r) out.errors.push_back(r.error().Message());
  }

  // 4. The cgroups, and the parents nobody uses now.
  auto ledger = CgroupRootLedger::Lock(env.state_dir);
  if (!ledger) {
    out.errors.push_back(ledger.error().Message());
    return;
  }
  if (auto t = cgroup.Teardown(ledger->entries()); !t) {
    out.errors.push_back(t.error().Message());
  } else {
    out.removed.push_back(fmt::format("cgroup {} removed", pod_cgroup.string()));
  }
  if (auto u = ledger->Update({}, cgroup.removed_root_dirs()); !u)
    out.errors.push_back(u.error().Message());
}

}  // namespace

Event StalePodCleanup::ToEvent() const {
  const std::string who = OwnerText(previous_owner);
  if (ok()) {
    return Event{EventType::kWarning, "OrphanedPodCleanedUp",
                 fmt::format("Pod {} was left behind by {}, which is gone: {}", pod, who,
                             fmt::join(removed, ", "))};
  }
  return Event{EventType::kWarning, "OrphanedPodCleanupFailed",
               fmt::format("Pod {} was left behind by {}, which is gone; cleaning it up failed: {}",
                           pod, who, fmt::join(errors, "; "))};
}

StalePodCleanup CleanUpStalePod(const PodClaim& claim, const StalePodEnvironment& env) {
  StalePodCleanup out;
  out.uid = claim.uid();
  out.pod = claim.uid();
  out.previous_owner = claim.previous_owner();
  const fs::path& pod_dir = claim.pod_dir();
  std::error_code ec;
  std::optional<PodRecord> record;
  if (fs::exists(pod_dir / kPodRecordFile, ec)) {
    auto read = ReadPodRecord(pod_dir);
    if (!read) {
      out.errors.push_back(read.error().Message());
      return out;  // without the record nothing is known: leave it for a person
    }
    record = std::move(*read);
    out.pod = fmt::format("{}_{}({})", record->name, record->namespace_, record->uid);
    // The record steers kills and removals: one that names another pod is not followed.
    if (record->uid != claim.uid()) {
      out.errors.push_back(fmt::format("\"{}\" names pod uid \"{}\", not \"{}\": left alone",
                                       (pod_dir / kPodRecordFile).string(), record->uid,
                                       claim.uid()));
      return out;
    }
    CleanUpFromRecord(*record, pod_dir, env, out);
  }
  // No record: the run died before it created anything but the directory.
  if (!out.ok()) return out;
  if (auto r = RemoveTree(pod_dir); !r) {
    out.errors.push_back(r.error().Message());
    return out;
  }
  out.removed.push_back(fmt::format("\"{}\" removed", pod_dir.string()));
  if (record) {
    for (const fs::path& image : record->images) image::ForgetLeaseHolder(image, pod_dir);
  }
  return out;
}

namespace {
// How old a lock file without a pod directory must be before cleanup looks at it.
constexpr auto kFreshLockAge = std::chrono::seconds(60);
}  // namespace

std::vector<StalePodCleanup> CleanUpStalePods(const StalePodEnvironment& env,
                                              const std::string& skip_uid) {
  const fs::path pods_dir = env.state_dir / "pods";
  std::set<std::string> uids;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(pods_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.ends_with(".lock")) {
      // A lock file with no pod directory is either left by a run that died before creating
      // it, or a run's claim between its open and its flock: only an old one is looked at, so
      // that this cleanup never takes a starting run's lock from under it.
      std::error_code age_error;
      const auto written = fs::last_write_time(it->path(), age_error);
      if (age_error || now - written < kFreshLockAge) continue;
      name.resize(name.size() - 5);
    }
    if (name.empty() || name.starts_with('.')) continue;  // temporary files
    if (name != skip_uid) uids.insert(name);
  }
  std::vector<StalePodCleanup> out;
  for (const std::string& uid : uids) {
    auto claim = PodClaim::Acquire(pods_dir, uid);
    if (!claim) {
      if (claim.error().Is(kPodUIDInUse)) continue;  // a live run's pod: never touched
      StalePodCleanup failed;
      failed.uid = failed.pod = uid;
      failed.errors.push_back(claim.error().Message());
      out.push_back(std::move(failed));
      continue;
    }
    // A lock file whose pod directory is gone (a run that died before creating it, or after
    // removing it) goes with the claim's release.
    if (claim->leftovers()) out.push_back(CleanUpStalePod(*claim, env));
  }
  return out;
}

}  // namespace podlimits::kubelet
