#include "runcwrap/node_feature_labels.h"

#include "api/json_codec.h"
#include "api/node.h"

namespace podlimits::runcwrap {

std::map<std::string, std::optional<std::string>> NodeFeatureLabels(
    const cgroups::CgroupLayout* layout) {
  const bool v2 = layout != nullptr && layout->mode == cgroups::CgroupMode::kV2;
  const bool pids = v2 && layout->UnifiedHas("pids");
  const bool nsdelegate = v2 && layout->unified && layout->unified->nsdelegate;
  auto label = [](bool declared) -> std::optional<std::string> {
    return declared ? std::optional<std::string>("true") : std::nullopt;
  };
  std::string prefix = kFeatureLabelPrefix;
  return {
      {prefix + "ContainerUlimits", label(true)},
      {prefix + "PerPodPIDLimit", label(pids)},
      {prefix + "SupportsCgroupOptions", label(nsdelegate)},
  };
}

std::string LabelsMergePatch(const std::map<std::string, std::optional<std::string>>& labels) {
  api::Node patch = api::Node::Object();
  api::Node& out = patch.Ensure("metadata").Ensure("labels");
  for (const auto& [key, value] : labels) {
    out.Set(key, value ? api::Node::String(*value) : api::Node::Null());
  }
  return api::EncodeJson(patch, 0);
}

}  // namespace podlimits::runcwrap
