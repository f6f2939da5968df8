// LimitRanger on PersistentVolumeClaims (PersistentVolumeClaimValidateLimitFunc): only
// `PersistentVolumeClaim` items apply, min and max bound the requests (limits are ignored),
// and nothing is defaulted.
#include <fmt/format.h>

#include "admission/forbidden.h"
#include "admission/limit_ranger.h"
#include "field/field.h"

namespace podlimits::admission {
namespace {

constexpr std::string_view kType = "PersistentVolumeClaim";

std::optional<std::string> MinRequest(std::string_view resource, const resource::Quantity& enforced,
                                      const api::ResourceList& requests) {
  auto req = requests.find(std::string(resource));
  if (req == requests.end()) {
    return fmt::format("minimum {} usage per {} is {}.  No request is specified", resource, kType,
                       enforced.String());
  }
  if (req->second.Cmp(enforced) < 0) {
    return fmt::format("minimum {} usage per {} is {}, but request is {}", resource, kType,
                       enforced.String(), req->second.String());
  }
  return std::nullopt;
}

std::optional<std::string> MaxRequest(std::string_view resource, const resource::Quantity& enforced,
                                      const api::ResourceList& requests) {
  auto req = requests.find(std::string(resource));
  if (req == requests.end()) {
    return fmt::format("maximum {} usage per {} is {}.  No request is specified", resource, kType,
                       enforced.String());
  }
  if (req->second.Cmp(enforced) > 0) {
    return fmt::format("maximum {} usage per {} is {}, but request is {}", resource, kType,
                       enforced.String(), req->second.String());
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> LimitRanger::ValidatePersistentVolumeClaim(
    const api::PersistentVolumeClaim& pvc) const {
  for (const auto& lr : limit_ranges_) {
    std::vector<std::string> errors;
    for (const auto& item : lr.limits) {
      if (item.type != kType) continue;
      for (const auto& [name, q] : item.min) {
        if (auto e = MinRequest(name, q, pvc.requests)) errors.push_back(*e);
      }
      for (const auto& [name, q] : item.max) {
        if (auto e = MaxRequest(name, q, pvc.requests)) errors.push_back(*e);
      }
    }
    if (!errors.empty()) {
      return ForbiddenMessage("persistentvolumeclaims", pvc.metadata, field::Aggregate(errors));
    }
  }
  return std::nullopt;
}

}  // namespace podlimits::admission
