#include "cgroups/pod_cgroups.h"

#include <algorithm>
#include <cerrno>
#include <optional>
#include <utility>

#include "cgroups/file_io.h"
#include "cgroups/memory.h"
#include "cgroups/pod_parents.h"

namespace podlimits::cgroups {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kKubepods = "kubepods";  // defaultNodeAllocatableCgroupName
constexpr std::string_view kPodPrefix = "pod";      // podCgroupNamePrefix
// How often Apply creates a parent chain that another run keeps removing under it.
constexpr int kCreateAttempts = 5;

bool Contains(const std::vector<std::string>& words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// "/a//b/" -> "a/b"; "." and ".." are left for the tree to refuse.
fs::path Normalized(const fs::path& cgroup) {
  fs::path out;
  for (const fs::path& part : cgroup) {
    if (part.empty() || part == "/") continue;
    out /= part;
  }
  return out;
}

Result<void> ValidatePlan(const PodCgroupPlan& plan, const std::vector<ManagedHierarchy>& hs) {
  const fs::path where = PodCgroupPath(plan.cgroup_root, plan.qos, plan.pod_uid);
  const std::string& uid = plan.pod_uid;
  if (uid.empty() || uid == "." || uid == ".." ||
      uid.find_first_of(std::string_view("/_\0\n", 4)) != std::string::npos) {
    return Failure("plan pod cgroup", where,
                   "invalid pod UID \"" + uid +
                       "\": a kubelet cgroup name is not empty and has no \"/\" or \"_\"");
  }
  for (const fs::path& part : plan.cgroup_root) {
    if (part == "." || part == "..") {
      return Failure("plan pod cgroup", where,
                     "cgroupRoot \"" + plan.cgroup_root.string() + "\" has a \".\" or \"..\"");
    }
  }
  auto negative = [&](std::string_view what, std::optional<std::int64_t> v) -> Result<void> {
    if (v && *v < 0) {
      return Failure("plan pod cgroup", where,
                     std::string(what) + " must not be negative, got " + std::to_string(*v));
    }
    return {};
  };
  if (auto ok = negative("kubepods pids.max", plan.kubepods_pids_max); !ok) return ok;
  if (auto ok = negative("pod pids.max", plan.pod_pids_max); !ok) return ok;
  if (plan.writable) {
    if (auto ok = negative("cgroup.max.descendants", plan.writable->max_descendants); !ok) {
      return ok;
    }
    if (auto ok = negative("cgroup.max.depth", plan.writable->max_depth); !ok) return ok;
    const bool v2 = std::any_of(hs.begin(), hs.end(), [](const ManagedHierarchy& h) {
      return h.version == CgroupVersion::kV2;
    });
    if (!v2) {
      return Failure("plan pod cgroup", where,
                     "a writable cgroup mount needs cgroup v2, and no managed hierarchy is v2");
    }
  }
  if (hs.empty()) return Failure("plan pod cgroup", where, "no cgroup hierarchy is managed");
  return {};
}

Result<ReadBack> ReadMax(const CgroupTree& tree, const fs::path& cgroup, std::string_view file) {
  auto dir = tree.Path(cgroup);
  if (!dir) return std::unexpected(dir.error());
  auto text = tree.Read(cgroup, file);
  if (!text) return std::unexpected(text.error());
  auto value = ParseMaxValue(*text, *dir / file);
  if (!value) return std::unexpected(value.error());
  return ReadBack{*dir / file, *value};
}

Result<ReadBack> WriteAndReadBack(CgroupTree& tree, const fs::path& cgroup, std::string_view file,
                                  std::int64_t value) {
  if (auto ok = tree.Write(cgroup, file, std::to_string(value)); !ok) {
    return std::unexpected(ok.error());
  }
  return ReadMax(tree, cgroup, file);
}

bool CreatedBy(const CgroupTree& tree, const fs::path& cgroup) {
  const std::vector<fs::path> created = tree.created();
  return std::find(created.begin(), created.end(), cgroup) != created.end();
}

// cgroup v2: creates the cgroups from the root down to `parent`, and makes sure each of them,
// the root included, has `controllers` in cgroup.subtree_control, so every cgroup below it has
// their files (pids.max, cpu.max, memory.max, ...).
Result<void> CreateWithControllers(CgroupTree& tree, const fs::path& parent,
                                   const std::vector<std::string>& controllers,
                                   HierarchyReadBack& rb) {
  std::vector<fs::path> chain = {fs::path()};
  for (const fs::path& part : parent) chain.push_back(chain.back() / part);
  for (const fs::path& dir : chain) {
    if (!dir.empty()) {
      if (auto ok = tree.Create(dir); !ok) return ok;
    }
    auto enabled = tree.Read(dir, "cgroup.subtree_control");
    if (!enabled) return std::unexpected(enabled.error());
    const std::vector<std::string> on = Words(*enabled);
    for (const std::string& controller : controllers) {
      if (Contains(on, controller)) continue;
      if (auto ok = tree.Write(dir, "cgroup.subtree_control", "+" + controller); !ok) return ok;
      if (controller == "pids" && (dir.empty() || !CreatedBy(tree, dir))) {
        auto abs = tree.Path(dir);
        rb.pids_enabled_in.push_back(abs ? *abs : dir);
      }
    }
  }
  return {};
}

// The controllers the pod cgroup's files belong to ("cpu.max" -> cpu).
std::vector<std::string> ControllersOf(const std::map<std::string, std::string>& files) {
  std::vector<std::string> out;
  for (const auto& [file, value] : files) {
    std::string controller = file.substr(0, file.find('.'));
    if (!Contains(out, controller)) out.push_back(controller);
  }
  return out;
}

}  // namespace

fs::path KubepodsCgroup(const fs::path& cgroup_root) {
  return fs::path("/") / Normalized(cgroup_root) / kKubepods;
}

fs::path QosCgroup(const fs::path& cgroup_root, QosClass qos) {
  switch (qos) {
    case QosClass::kGuaranteed:
      return KubepodsCgroup(cgroup_root);
    case QosClass::kBurstable:
      return KubepodsCgroup(cgroup_root) / "burstable";
    case QosClass::kBestEffort:
      return KubepodsCgroup(cgroup_root) / "besteffort";
  }
  return KubepodsCgroup(cgroup_root);
}

fs::path PodCgroupPath(const fs::path& cgroup_root, QosClass qos, std::string_view pod_uid) {
  return QosCgroup(cgroup_root, qos) / (std::string(kPodPrefix) + std::string(pod_uid));
}

PodCgroup::PodCgroup(std::vector<ManagedHierarchy> hierarchies)
    : hierarchies_(std::move(hierarchies)), pod_owned_(hierarchies_.size(), false) {}

Result<HierarchyReadBack> PodCgroup::ApplyTo(std::size_t index, const PodCgroupPlan& plan) {
  ManagedHierarchy& h = hierarchies_[index];
  CgroupTree& tree = h.tree;
  const fs::path kubepods = Normalized(KubepodsCgroup(plan.cgroup_root));
  const fs::path qos = Normalized(QosCgroup(plan.cgroup_root, plan.qos));
  const fs::path pod = Normalized(PodCgroupPath(plan.cgroup_root, plan.qos, plan.pod_uid));

  HierarchyReadBack rb;
  rb.version = h.version;
  auto pod_dir = tree.Path(pod);
  if (!pod_dir) return std::unexpected(pod_dir.error());
  rb.pod_cgroup_dir = *pod_dir;

  bool has_pids = h.HasV1Controller("pids");
  if (h.version == CgroupVersion::kV2) {
    auto text = tree.Read("", "cgroup.controllers");
    if (!text) return std::unexpected(text.error());
    const std::vector<std::string> controllers = Words(*text);
    has_pids = Contains(controllers, "pids");
    if (!has_pids && (plan.kubepods_pids_max || plan.pod_pids_max)) {
      return Failure("enable pids controller", tree.root(),
                     "pids is not in cgroup.controllers (\"" + Join(controllers) +
                         "\"), so pids.max cannot be set");
    }
  }
  // Another run's teardown may remove a shared parent between two of our mkdirs (ENOENT): the
  // chain is then created again. Once the pod cgroup exists it pins every parent.
  for (int attempt = 1;; ++attempt) {
    std::vector<std::string> controllers;
    if (h.version == CgroupVersion::kV2) {
      if (has_pids) controllers.push_back("pids");
      for (const auto* files : {&plan.pod_files, &plan.qos_files, &plan.kubepods_files}) {
        for (auto& c : ControllersOf(*files)) {
          if (!Contains(controllers, c)) controllers.push_back(std::move(c));
        }
      }
    }
    if (!controllers.empty()) {
      rb.pids_enabled_in.clear();
      if (auto ok = CreateWithControllers(tree, qos, controllers, rb); !ok) {
        if (ok.error().errno_value == ENOENT && attempt < kCreateAttempts) continue;
        return std::unexpected(ok.error());
      }
    }
    auto made = tree.Create(pod, CgroupTree::CreateMode::kExclusive);
    if (made) break;
    if (made.error().errno_value == ENOENT && attempt < kCreateAttempts) continue;
    return std::unexpected(made.error());
  }
  pod_owned_[index] = true;

  // kubepods' allocatable, (re)written by every run: the run that created kubepods may not be
  // the one that set it, and a kubepods removed and created again starts at "max".
  if (has_pids && plan.kubepods_pids_max) {
    auto read = WriteAndReadBack(tree, kubepods, "pids.max", *plan.kubepods_pids_max);
    if (!read) return std::unexpected(read.error());
    rb.kubepods_pids_max = *read;
  }
  if (has_pids) {
    if (plan.pod_pids_max) {
      if (auto ok = tree.Write(pod, "pids.max", std::to_string(*plan.pod_pids_max)); !ok) {
        return std::unexpected(ok.error());
      }
    }
    auto read = ReadMax(tree, pod, "pids.max");
    if (!read) return std::unexpected(read.error());
    rb.pod_pids_max = *read;
  }
  if (h.version == CgroupVersion::kV2) {
    for (const auto& [file, value] : plan.kubepods_files) {
      if (auto ok = tree.Write(kubepods, file, value); !ok) return std::unexpected(ok.error());
    }
    if (qos != kubepods) {
      for (const auto& [file, value] : plan.qos_files) {
        if (auto ok = tree.Write(qos, file, value); !ok) return std::unexpected(ok.error());
      }
    }
    for (const auto& [file, value] : plan.pod_files) {
      if (auto ok = tree.Write(pod, file, value); !ok) return std::unexpected(ok.error());
    }
  }
  if (plan.writable && h.version == CgroupVersion::kV2) {
    auto descendants =
        WriteAndReadBack(tree, pod, "cgroup.max.descendants", plan.writable->max_descendants);
    if (!descendants) return std::unexpected(descendants.error());
    rb.max_descendants = *descendants;
    auto depth = WriteAndReadBack(tree, pod, "cgroup.max.depth", plan.writable->max_depth);
    if (!depth) return std::unexpected(depth.error());
    rb.max_depth = *depth;
  }
  return rb;
}

Result<void> PodCgroup::UpdateQosFiles(const std::map<std::string, std::string>& files) {
  if (!plan_) return {};
  const fs::path kubepods = Normalized(KubepodsCgroup(plan_->cgroup_root));
  const fs::path qos = Normalized(QosCgroup(plan_->cgroup_root, plan_->qos));
  if (qos == kubepods) return {};
  for (auto& h : hierarchies_) {
    if (h.version != CgroupVersion::kV2) continue;
    auto dir = h.tree.Path(qos);
    if (!dir) return std::unexpected(dir.error());
    std::error_code ec;
    if (!fs::exists(*dir, ec)) continue;  // the last pod's teardown removed it
    for (const auto& [file, value] : files) {
      if (auto ok = h.tree.Write(qos, file, value); !ok) {
        // Removed by another run's teardown meanwhile: nothing left to update.
        if (ok.error().errno_value == ENOENT) break;
        return ok;
      }
    }
  }
  return {};
}

Result<AppliedPodCgroup> PodCgroup::Apply(const PodCgroupPlan& plan) {
  if (auto ok = ValidatePlan(plan, hierarchies_); !ok) return std::unexpected(ok.error());
  plan_ = plan;
  AppliedPodCgroup applied;
  applied.cgroup = PodCgroupPath(plan.cgroup_root, plan.qos, plan.pod_uid);
  for (std::size_t i = 0; i < hierarchies_.size(); ++i) {
    auto rb = ApplyTo(i, plan);
    if (!rb) {
      Error error = rb.error();
      if (auto undone = Teardown(); !undone) {
        error.detail += (error.detail.empty() ? "" : "; ") + std::string("rollback: ") +
                        undone.error().Message();
      }
      return std::unexpected(std::move(error));
    }
    applied.hierarchies.push_back(std::move(*rb));
  }
  const PodParents parents = ParentsOf(plan.cgroup_root, plan.qos);
  for (const ManagedHierarchy& h : hierarchies_) {
    for (const fs::path& dir : parents.root_dirs) {
      if (CreatedBy(h.tree, dir)) applied.created_root_dirs.push_back(h.tree.root() / dir);
    }
  }
  return applied;
}

void PodCgroup::Adopt(const PodCgroupPlan& plan) {
  plan_ = plan;
  pod_owned_.assign(hierarchies_.size(), true);
}

Result<void> PodCgroup::Kill(const fs::path& cgroup) {
  std::optional<Error> first;
  for (ManagedHierarchy& h : hierarchies_) {
    auto dir = h.tree.Path(cgroup);
    if (!dir) return std::unexpected(dir.error());
    std::error_code ec;
    if (!fs::exists(*dir, ec)) continue;
    if (auto ok = h.tree.Kill(cgroup); !ok && !first) first = ok.error();
  }
  if (first) return std::unexpected(*first);
  return {};
}

bool PodCgroup::OomKilled(const fs::path& cgroup) const {
  for (const ManagedHierarchy& h : hierarchies_) {
    if (h.version != CgroupVersion::kV2) continue;
    auto kills = ReadOomKills(h.tree, cgroup);
    if (kills && *kills > 0) return true;
  }
  return false;
}

Result<void> PodCgroup::Teardown(std::span<const fs::path> owned_root_dirs) {
  removed_root_dirs_.clear();
  if (!plan_) return {};
  const fs::path pod = PodCgroupPath(plan_->cgroup_root, plan_->qos, plan_->pod_uid);
  const PodParents parents = ParentsOf(plan_->cgroup_root, plan_->qos);
  std::optional<Error> first;
  for (std::size_t i = 0; i < hierarchies_.size(); ++i) {
    CgroupTree& tree = hierarchies_[i].tree;
    if (pod_owned_[i]) {
      if (auto removed = tree.RemoveTree(pod); !removed) {
        if (!first) first = removed.error();
        continue;  // its parents are still in use by it
      }
      pod_owned_[i] = false;
    }
    auto owns = [&](const fs::path& dir) {
      if (CreatedBy(tree, dir)) return true;
      return std::find(owned_root_dirs.begin(), owned_root_dirs.end(), tree.root() / dir) !=
             owned_root_dirs.end();
    };
    auto removed = RemoveUnusedParents(tree, parents, owns);
    if (!removed) {
      if (!first) first = removed.error();
      continue;
    }
    for (const fs::path& dir : *removed) removed_root_dirs_.push_back(tree.root() / dir);
  }
  if (first) return std::unexpected(*first);
  return {};
}

}  // namespace podlimits::cgroups
