#include "cgroups/hierarchies.h"

#include <algorithm>

namespace podlimits::cgroups {

bool ManagedHierarchy::HasV1Controller(std::string_view controller) const {
  return version == CgroupVersion::kV1 &&
         std::find(controllers.begin(), controllers.end(), controller) != controllers.end();
}

Result<std::vector<ManagedHierarchy>> ManagedHierarchies(const CgroupLayout& layout,
                                                         std::span<const std::string> controllers) {
  std::vector<ManagedHierarchy> out;
  auto add_unified = [&] {
    const bool present = std::any_of(out.begin(), out.end(), [](const ManagedHierarchy& h) {
      return h.version == CgroupVersion::kV2;
    });
    if (!present) {
      out.push_back({CgroupVersion::kV2, {}, CgroupTree::OnCgroupfs(layout.unified->mount_point)});
    }
  };
  if (layout.mode == CgroupMode::kV2) {
    if (!layout.unified) return Failure("detect cgroups", "/sys/fs/cgroup", "no cgroup2 mount");
    add_unified();
    return out;
  }
  for (const std::string& controller : controllers) {
    // Creating a cgroup in a v1 hierarchy creates it for every controller bound there, and the
    // runtime joins every hierarchy it is shown: only pids, alone, is podlimits' to touch.
    if (controller != "pids") {
      return Failure("detect cgroups", "/sys/fs/cgroup",
                     "podlimits manages only the pids hierarchy on a cgroup v1 or hybrid node, "
                     "not " +
                         controller);
    }
    if (const V1Hierarchy* h = layout.V1For(controller)) {
      if (h->controllers.size() != 1) {
        return Failure("detect cgroups", h->mount_point,
                       "the pids controller shares this hierarchy with other controllers, where "
                       "podlimits must not create cgroups");
      }
      const bool present = std::any_of(out.begin(), out.end(), [&](const ManagedHierarchy& m) {
        return m.version == CgroupVersion::kV1 && m.tree.root() == h->mount_point;
      });
      if (!present) {
        out.push_back({CgroupVersion::kV1, h->controllers, CgroupTree::OnCgroupfs(h->mount_point)});
      }
    } else if (layout.unified && layout.UnifiedHas(controller)) {
      add_unified();
    } else {
      return Failure("detect cgroups", "/sys/fs/cgroup",
                     "the " + controller +
                         " controller is neither mounted as a cgroup v1 hierarchy nor available "
                         "in cgroup2");
    }
  }
  return out;
}

Result<std::vector<ManagedHierarchy>> ManagedHierarchies(const CgroupLayout& layout) {
  static const std::vector<std::string> kPids = {"pids"};
  return ManagedHierarchies(layout, kPids);
}

}  // namespace podlimits::cgroups
