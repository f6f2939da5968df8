#include "validation/feature_gates.h"

#include "base/numbers.h"

#include <fmt/format.h>

#include <utility>

namespace podlimits::validation {
namespace {

bool* GateField(FeatureGates& g, std::string_view name) {
  if (name == "ContainerUlimits") return &g.container_ulimits;
  if (name == "PerPodPIDLimit") return &g.per_pod_pid_limit;
  if (name == "PodLevelResources") return &g.pod_level_resources;
  if (name == "CgroupOptions") return &g.cgroup_options;
  return nullptr;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

Result<FeatureGates> FeatureGates::Parse(std::string_view spec) {
  FeatureGates gates;
  while (!spec.empty()) {
    std::size_t comma = spec.find(',');
    std::string_view item = Trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Failure(fmt::format("missing bool value for {}", item));
    }
    std::string_view key = Trim(item.substr(0, eq));
    std::string_view value = Trim(item.substr(eq + 1));
    bool* field = GateField(gates, key);
    if (!field) return Failure(fmt::format("unrecognized feature gate: {}", key));
    auto b = ParseGoBool(value);
    if (!b) {
      return Failure(fmt::format(
          "invalid value of {}={}, err: strconv.ParseBool: parsing \"{}\": invalid syntax", key,
          value, value));
    }
    *field = *b;
  }
  if (auto ok = gates.Validate(); !ok) return std::unexpected(ok.error());
  return gates;
}

Result<FeatureGates> FeatureGates::FromMap(
    const std::map<std::string, bool>& map) {
  FeatureGates gates;
  for (const auto& [key, value] : map) {
    bool* field = GateField(gates, key);
    if (!field) return Failure(fmt::format("unrecognized feature gate: {}", key));
    *field = value;
  }
  if (auto ok = gates.Validate(); !ok) return std::unexpected(ok.error());
  return gates;
}

Result<void> FeatureGates::Validate() const {
  // KEP-6063: pid lives under spec.resources, so the pod-level resources API must exist.
  if (per_pod_pid_limit && !pod_level_resources) {
    return Failure(
        "feature gate PerPodPIDLimit depends on PodLevelResources: PerPodPIDLimit=true requires "
        "PodLevelResources=true");
  }
  return {};
}

}  // namespace podlimits::validation
