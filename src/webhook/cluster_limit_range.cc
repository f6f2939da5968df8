#include "webhook/cluster_limit_range.h"

#include <fmt/format.h>

namespace podlimits::webhook {

field::ErrorList TranslateClusterLimitRange(codec::Node& limit_range) {
  field::ErrorList errors;
  codec::Node* limits = limit_range.FindPath({"spec", "limits"});
  if (limits == nullptr || !limits->IsArray()) return errors;
  const field::Path list = field::Path("spec").Child("limits");
  for (std::size_t i = 0; i < limits->items.size(); ++i) {
    codec::Node& item = limits->items[i];
    const codec::Node* type = item.Find("type");
    if (type == nullptr || !type->IsString() || type->scalar != kClusterPodLimitType) continue;
    item.Set("type", codec::Node::String("Pod"));
    for (const char* bound : {"default", "defaultRequest", "max", "min", "maxLimitRequestRatio"}) {
      codec::Node* values = item.Find(bound);
      if (values == nullptr || !values->IsObject()) continue;
      for (auto& m : values->members) {
        if (m.key == kClusterPidResource) {
          m.key = "pid";
        } else {
          errors.push_back(field::Invalid(
              list.Index(i).Child(bound).Key(m.key), m.key,
              fmt::format("a {} item holds only {}", kClusterPodLimitType, kClusterPidResource)));
        }
      }
    }
  }
  return errors;
}

}  // namespace podlimits::webhook
