#include "runcwrap/node_feature_labels.h"

#include "codec/json_codec.h"
#include "codec/node.h"

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
  codec::Node patch = codec::Node::Object();
  codec::Node& out = patch.Ensure("metadata").Ensure("labels");
  for (const auto& [key, value] : labels) {
    out.Set(key, value ? codec::Node::String(*value) : codec::Node::Null());
  }
  return codec::EncodeJson(patch, 0);
}

}  // namespace podlimits::runcwrap
