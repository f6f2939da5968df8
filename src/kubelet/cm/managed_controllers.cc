#include "kubelet/cm/managed_controllers.h"

#include <fmt/format.h>

#include <vector>

#include "base/error.h"
#include "field/field.h"

namespace podlimits::kubelet {

Result<void> ValidateManagedControllers(const NodeConfig& config, cgroups::CgroupMode mode) {
  if (mode == cgroups::CgroupMode::kV2) return {};
  const field::Path path("managedControllers");
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < config.managed_controllers.size(); ++i) {
    const std::string& c = config.managed_controllers[i];
    if (c == "pids") continue;
    problems.push_back(field::NotSupported(path.Index(i), c, {"pids"}).String());
  }
  if (problems.empty()) return {};
  const std::string source = config.source.empty() ? std::string("node config") : config.source;
  return Failure(fmt::format(
      "{}: {} (on a cgroup {} node podlimits manages only the pids hierarchy: it never creates "
      "or joins a cgroup in any other)",
      source, field::Aggregate(problems), cgroups::Name(mode)));
}

}  // namespace podlimits::kubelet
