#include "kubelet/status/condition_time.h"

namespace podlimits::kubelet {

std::string ConditionTransitionTime(const codec::Node* conditions, std::string_view type,
                                    std::string_view status, std::string_view now) {
  if (conditions == nullptr || !conditions->IsArray()) return std::string(now);
  for (const codec::Node& c : conditions->items) {
    const codec::Node* t = c.Find("type");
    const codec::Node* s = c.Find("status");
    const codec::Node* when = c.Find("lastTransitionTime");
    if (t && t->scalar == type && s && s->scalar == status && when && when->IsString()) {
      return when->scalar;
    }
  }
  return std::string(now);
}

}  // namespace podlimits::kubelet
