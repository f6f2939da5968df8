// The validating half of LimitRanger: PodValidateLimitFunc and its constraint functions.
#include <fmt/format.h>

#include "admission/forbidden.h"
#include "admission/limit_ranger.h"
#include "field/field.h"
#include "validation/resource_names.h"

namespace podlimits::admission {
namespace {

using resource::Quantity;
using api::ResourceList;

constexpr std::string_view kTypeContainer = "Container";
constexpr std::string_view kTypePod = "Pod";

const Quantity* Find(const ResourceList& list, std::string_view name) {
  auto it = list.find(std::string(name));
  return it == list.end() ? nullptr : &it->second;
}

void Collect(std::vector<std::string>& errors, std::optional<std::string> error) {
  if (error) errors.push_back(std::move(*error));
}

// How a Pod item treats pid: with the extension on, pid is limit-only (its min is checked against
// the limit); with it off, a Pod item's pid entries are not enforced at all. Container items
// always use the generic rules.
enum class PidRule { kGeneric, kLimitOnly, kIgnored };

// One Container or Pod item's min, max and ratio blocks against one request/limit pair, in
// upstream's block order; within a block, resource names in sorted order.
void CheckItem(const api::LimitRangeItem& item, const ResourceList& requests,
               const ResourceList& limits, PidRule pid_rule, std::vector<std::string>& errors) {
  auto is_pid = [](const std::string& name) { return name == validation::kResourcePid; };
  auto skipped = [&](const std::string& name) {
    return pid_rule == PidRule::kIgnored && is_pid(name);
  };
  for (const auto& [name, enforced] : item.min) {
    if (skipped(name)) continue;
    Collect(errors, pid_rule == PidRule::kLimitOnly && is_pid(name)
                        ? LimitOnlyMinConstraint(item.type, name, enforced, limits)
                        : MinConstraint(item.type, name, enforced, requests, limits));
  }
  for (const auto& [name, enforced] : item.max) {
    if (skipped(name)) continue;
    Collect(errors, MaxConstraint(item.type, name, enforced, requests, limits));
  }
  for (const auto& [name, enforced] : item.max_limit_request_ratio) {
    if (skipped(name)) continue;
    Collect(errors, LimitRequestRatioConstraint(item.type, name, enforced, requests, limits));
  }
}

}  // namespace

std::optional<std::string> MinConstraint(std::string_view limit_type, std::string_view resource,
                                         const Quantity& enforced, const ResourceList& requests,
                                         const ResourceList& limits) {
  const Quantity* req = Find(requests, resource);
  const Quantity* lim = Find(limits, resource);
  if (!req) {
    return fmt::format("minimum {} usage per {} is {}.  No request is specified", resource,
                       limit_type, enforced.String());
  }
  if (enforced.Cmp(*req) > 0) {
    return fmt::format("minimum {} usage per {} is {}, but request is {}", resource, limit_type,
                       enforced.String(), req->String());
  }
  if (lim && enforced.Cmp(*lim) > 0) {
    return fmt::format("minimum {} usage per {} is {}, but limit is {}", resource, limit_type,
                       enforced.String(), lim->String());
  }
  return std::nullopt;
}

std::optional<std::string> MaxConstraint(std::string_view limit_type, std::string_view resource,
                                         const Quantity& enforced, const ResourceList& requests,
                                         const ResourceList& limits) {
  const Quantity* req = Find(requests, resource);
  const Quantity* lim = Find(limits, resource);
  if (!lim) {
    return fmt::format("maximum {} usage per {} is {}.  No limit is specified", resource,
                       limit_type, enforced.String());
  }
  if (lim->Cmp(enforced) > 0) {
    return fmt::format("maximum {} usage per {} is {}, but limit is {}", resource, limit_type,
                       enforced.String(), lim->String());
  }
  if (req && req->Cmp(enforced) > 0) {
    return fmt::format("maximum {} usage per {} is {}, but request is {}", resource, limit_type,
                       enforced.String(), req->String());
  }
  return std::nullopt;
}

std::optional<std::string> LimitRequestRatioConstraint(std::string_view limit_type,
                                                       std::string_view resource,
                                                       const Quantity& enforced,
                                                       const ResourceList& requests,
                                                       const ResourceList& limits) {
  const Quantity* req = Find(requests, resource);
  const Quantity* lim = Find(limits, resource);
  if (!req || req->Sign() == 0) {
    return fmt::format(
        "{} max limit to request ratio per {} is {}, but no request is specified or request is 0",
        resource, limit_type, enforced.String());
  }
  if (!lim || lim->Sign() == 0) {
    return fmt::format(
        "{} max limit to request ratio per {} is {}, but no limit is specified or limit is 0",
        resource, limit_type, enforced.String());
  }
  // Exact: |limit| > |request| * enforced, no float64 rounding of the ratio.
  if (Quantity::CmpRatio(*lim, *req, enforced) > 0) {
    return fmt::format("{} max limit to request ratio per {} is {}, but provided ratio is {}",
                       resource, limit_type, enforced.String(),
                       Quantity::FormatRatioForMessage(*lim, *req));
  }
  return std::nullopt;
}

std::optional<std::string> LimitOnlyMinConstraint(std::string_view limit_type,
                                                  std::string_view resource,
                                                  const Quantity& enforced,
                                                  const ResourceList& limits) {
  const Quantity* lim = Find(limits, resource);
  if (!lim) {
    return fmt::format("minimum {} usage per {} is {}.  No limit is specified", resource,
                       limit_type, enforced.String());
  }
  if (enforced.Cmp(*lim) > 0) {
    return fmt::format("minimum {} usage per {} is {}, but limit is {}", resource, limit_type,
                       enforced.String(), lim->String());
  }
  return std::nullopt;
}

LimitRanger::LimitRanger(std::vector<api::LimitRange> limit_ranges, validation::FeatureGates gates)
    : limit_ranges_(std::move(limit_ranges)), gates_(gates) {}

std::vector<std::string> LimitRanger::ValidateAgainst(const api::LimitRange& limit_range,
                                                      const api::Pod& pod) const {
  std::vector<std::string> errors;
  for (const api::LimitRangeItem& item : limit_range.limits) {
    if (item.type == kTypeContainer) {
      // Containers first, then init containers (sidecars included); ephemeral containers never.
      for (const auto* list : {&pod.spec.containers, &pod.spec.init_containers}) {
        for (const api::Container& c : *list) {
          CheckItem(item, c.resources.requests, c.resources.limits, PidRule::kGeneric, errors);
        }
      }
    } else if (item.type == kTypePod) {
      ResourceList requests = PodRequests(pod, gates_.pod_level_resources);
      ResourceList limits = PodLimits(pod, gates_.pod_level_resources, PidEnabled());
      CheckItem(item, requests, limits, PidEnabled() ? PidRule::kLimitOnly : PidRule::kIgnored,
                errors);
    }
    // PersistentVolumeClaim and custom item types do not apply to pods.
  }
  return errors;
}

std::optional<std::string> LimitRanger::Validate(const api::Pod& pod) const {
  for (const api::LimitRange& limit_range : limit_ranges_) {
    std::vector<std::string> errors = ValidateAgainst(limit_range, pod);
    if (!errors.empty()) {
      return ForbiddenMessage("pods", pod.metadata, field::Aggregate(errors));
    }
  }
  return std::nullopt;
}

}  // namespace podlimits::admission
