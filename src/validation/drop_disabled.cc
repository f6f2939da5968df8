#include "validation/drop_disabled.h"

#include <fmt/format.h>

namespace podlimits::validation {
namespace {

void DropFromContainers(codec::Node& spec, std::string_view field, std::string_view gate,
                        std::vector<std::string>& warnings) {
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    codec::Node* cs = spec.Find(list);
    if (!cs || !cs->IsArray()) continue;
    for (std::size_t i = 0; i < cs->items.size(); ++i) {
      codec::Node* sc = cs->items[i].Find("securityContext");
      if (sc && sc->Erase(field)) {
        warnings.push_back(fmt::format(
            "spec.{}[{}].securityContext.{}: field dropped because the {} feature gate is disabled",
            list, i, field, gate));
      }
    }
  }
}

}  // namespace

std::vector<std::string> DropDisabledPodFields(codec::Node& pod, const FeatureGates& gates) {
  std::vector<std::string> warnings;
  codec::Node* spec = pod.Find("spec");
  if (!spec) return warnings;
  if (!gates.container_ulimits) DropFromContainers(*spec, "ulimits", "ContainerUlimits", warnings);
  if (!gates.cgroup_options) DropFromContainers(*spec, "cgroupOptions", "CgroupOptions", warnings);
  if (!gates.pod_level_resources && spec->Erase("resources")) {
    warnings.push_back(
        "spec.resources: field dropped because the PodLevelResources feature gate is disabled");
  }
  return warnings;
}

}  // namespace podlimits::validation
