#include "cgroups/pod_parents.h"

#include "cgroups/pod_cgroups.h"

namespace podlimits::cgroups {
namespace {

namespace fs = std::filesystem;

fs::path Relative(const fs::path& cgroup) {
  fs::path out;
  for (const fs::path& part : cgroup) {
    if (part.empty() || part == "/") continue;
    out /= part;
  }
  return out;
}

}  // namespace

PodParents ParentsOf(const fs::path& cgroup_root, QosClass qos) {
  PodParents p;
  fs::path dir;
  for (const fs::path& part : Relative(cgroup_root)) {
    dir /= part;
    p.root_dirs.push_back(dir);
  }
  p.kubepods = Relative(KubepodsCgroup(cgroup_root));
  p.qos = Relative(QosCgroup(cgroup_root, qos));
  return p;
}

Result<std::vector<fs::path>> RemoveUnusedParents(
    CgroupTree& tree, const PodParents& parents,
    const std::function<bool(const fs::path&)>& owns_root_dir) {
  std::vector<fs::path> removed_root_dirs;
  std::vector<fs::path> shared = {parents.qos};
  if (parents.qos != parents.kubepods) shared.push_back(parents.kubepods);
  for (const fs::path& dir : shared) {
    auto r = tree.RemoveIfUnused(dir);
    if (!r) return std::unexpected(r.error());
    if (*r == CgroupTree::Removal::kInUse) return removed_root_dirs;
  }
  for (auto it = parents.root_dirs.rbegin(); it != parents.root_dirs.rend(); ++it) {
    if (!owns_root_dir || !owns_root_dir(*it)) break;
    auto r = tree.RemoveIfUnused(*it);
    if (!r) return std::unexpected(r.error());
    if (*r == CgroupTree::Removal::kInUse) break;
    if (*r == CgroupTree::Removal::kRemoved) removed_root_dirs.push_back(*it);
  }
  return removed_root_dirs;
}

}  // namespace podlimits::cgroups
