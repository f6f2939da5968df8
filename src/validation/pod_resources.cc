// Container and pod-level resource validation, including KEP-6063's pod PID limit.
#include "api/pod_resources.h"

#include <fmt/format.h>

#include "validation/pod.h"
#include "validation/resource_names.h"

namespace podlimits::validation {
namespace {

using resource::Quantity;
using api::ResourceList;

constexpr std::string_view kPid = "pid";
// KEP-6063 (the seed): "Minimum: 1024 (conservative lower bound)", "Maximum: 16384".
constexpr std::int64_t kMinPodPidLimit = 1024;
constexpr std::int64_t kMaxPodPidLimit = 16384;

enum class Level { kContainer, kPod };

// The names nearly every pod uses; checked without building a field path.
bool CommonValidName(std::string_view name, Level level) {
  if (name == "cpu" || name == "memory") return true;
  return level == Level::kContainer && name == "ephemeral-storage";
}

field::ErrorList ValidateName(std::string_view name, Level level, const field::Path& path,
                              const FeatureGates& gates) {
  bool pid_supported = gates.per_pod_pid_limit && gates.pod_level_resources;
  if (name == kPid && pid_supported) {
    // With PerPodPIDLimit, pid is a standard resource but not a container resource.
    if (level == Level::kContainer) {
      return {
          field::Invalid(path, std::string(name), "must be a standard resource for containers")};
    }
    return {};
  }
  if (level == Level::kContainer) return ValidateContainerResourceName(name, path);
  field::ErrorList errs = ValidateResourceName(name, path);
  if (!errs.empty()) return errs;
  if (name != "cpu" && name != "memory" && !IsHugePageResourceName(name)) {
    std::vector<std::string> supported = {"cpu", "hugepages-", "memory"};
    if (pid_supported) supported.push_back("pid");
    errs.push_back(field::NotSupported(path, std::string(name), supported));
  }
  return errs;
}

field::ErrorList ValidateQuantityValue(std::string_view name, const Quantity& q,
                                       const field::Path& path) {
  field::ErrorList errs;
  if (q.Sign() < 0) {
    errs.push_back(field::Invalid(path, q.String(), "must be greater than or equal to 0"));
  }
  if (IsIntegerResourceName(name) && q.MilliValue() % 1000 != 0) {
    errs.push_back(field::Invalid(path, q.String(), "must be an integer"));
  }
  return errs;
}

bool QuantityValueSuspect(std::string_view name, const Quantity& q) {
  return q.Sign() < 0 || IsIntegerResourceName(name);
}

std::optional<std::string> HugePageValueError(std::string_view name, const Quantity& q) {
  if (!IsHugePageResourceName(name)) return std::nullopt;
  auto page = Quantity::Parse(name.substr(std::string_view("hugepages-").size()));
  bool divisible =
      page && page->Sign() > 0 && page->MilliValue() % 1000 == 0 && q.Value() % page->Value() == 0;
  if (divisible) return std::nullopt;
  return fmt::format("{} is not positive integer multiple of {}", q.String(), name);
}

// validateResourceRequirements: shared by containers (level kContainer) and spec.resources.
field::ErrorList ValidateRequirements(const api::ResourceRequirements& r, Level level,
                                      const field::Path& path, const FeatureGates& gates,
                                      const std::set<std::string>& pod_claim_names) {
  field::ErrorList errs;
  field::Path lim_path = path.Child("limits");
  field::Path req_path = path.Child("requests");
  bool lim_cpu_or_memory = false, req_cpu_or_memory = false;
  bool lim_hugepages = false, req_hugepages = false;
  for (const auto& [name, q] : r.limits) {
    // Paths are built only when something is wrong: this loop runs for every container.
    auto p = [&lim_path, &name] { return lim_path.Key(name); };
    if (!CommonValidName(name, level)) field::Append(errs, ValidateName(name, level, p(), gates));
    if (QuantityValueSuspect(name, q)) field::Append(errs, ValidateQuantityValue(name, q, p()));
    if (IsHugePageResourceName(name)) {
      lim_hugepages = true;
      if (auto e = HugePageValueError(name, q)) errs.push_back(field::Invalid(p(), q.String(), *e));
    }
    if (name == "cpu" || name == "memory") lim_cpu_or_memory = true;
    if (name == kPid && level == Level::kPod && gates.per_pod_pid_limit) {
      if (q.MilliValue() % 1000 != 0) {
        errs.push_back(field::Invalid(p(), q.String(), "must be an integer"));
      } else if (q.Value() < kMinPodPidLimit || q.Value() > kMaxPodPidLimit) {
        errs.push_back(field::Invalid(
            p(), q.String(),
            fmt::format("must be between {} and {}, inclusive", kMinPodPidLimit, kMaxPodPidLimit)));
      }
    }
  }
  for (const auto& [name, q] : r.requests) {
    auto p = [&req_path, &name] { return req_path.Key(name); };
    if (name == kPid && level == Level::kPod && gates.per_pod_pid_limit) {
      // KEP-6063: pid is limit-only; a request is rejected rather than silently ignored.
      errs.push_back(field::Forbidden(p(), "pid may only be set in spec.resources.limits"));
      continue;
    }
    if (!CommonValidName(name, level)) field::Append(errs, ValidateName(name, level, p(), gates));
    if (QuantityValueSuspect(name, q)) field::Append(errs, ValidateQuantityValue(name, q, p()));
    auto lim = r.limits.find(name);
    if (lim != r.limits.end()) {
      if (q.Cmp(lim->second) != 0 && !IsOvercommitAllowed(name)) {
        errs.push_back(field::Invalid(
            req_path, q.String(),
            fmt::format("must be equal to {} limit of {}", name, lim->second.String())));
      } else if (q.Cmp(lim->second) > 0) {
        errs.push_back(field::Invalid(req_path, q.String(),
                                      fmt::format("must be less than or equal to {} limit of {}",
                                                  name, lim->second.String())));
      }
    } else if (!IsOvercommitAllowed(name)) {
      errs.push_back(
          field::Required(lim_path, "Limit must be set for non overcommitable resources"));
    }
    if (IsHugePageResourceName(name)) {
      req_hugepages = true;
      if (auto e = HugePageValueError(name, q)) errs.push_back(field::Invalid(p(), q.String(), *e));
    }
    if (name == "cpu" || name == "memory") req_cpu_or_memory = true;
  }
  if (!lim_cpu_or_memory && !req_cpu_or_memory && (lim_hugepages || req_hugepages)) {
    errs.push_back(field::Forbidden(path, "HugePages require cpu or memory"));
  }
  if (!r.claims.empty()) {
    field::Append(errs,
                  ValidateResourceClaimNames(r.claims, pod_claim_names, path.Child("claims")));
  }
  return errs;
}

}  // namespace

field::ErrorList ValidateContainerResources(const api::Container& c, const field::Path& path,
                                            const FeatureGates& gates,
                                            const std::set<std::string>& pod_claim_names) {
  if (c.kind == api::ContainerKind::kEphemeral) {
    const api::ResourceRequirements& r = c.resources;
    if (c.resources_set && (!r.limits.empty() || !r.requests.empty() || !r.claims.empty())) {
      return {field::Forbidden(path, "cannot be set for an Ephemeral Container")};
    }
    return {};
  }
  return ValidateRequirements(c.resources, Level::kContainer, path, gates, pod_claim_names);
}

field::ErrorList ValidateOverhead(const api::PodSpec& spec, const FeatureGates& gates) {
  if (!spec.overhead_set) return {};
  api::ResourceRequirements overhead;
  overhead.limits = spec.overhead;
  // Overhead has no claims; upstream passes a nil set of pod claim names.
  return ValidateRequirements(overhead, Level::kContainer, field::Path("spec").Child("overhead"),
                              gates, {});
}

field::ErrorList ValidatePodLevelResources(const api::PodSpec& spec, const FeatureGates& gates,
                                           const std::set<std::string>& pod_claim_names) {
  field::ErrorList errs;
  if (!spec.resources || !gates.pod_level_resources) return errs;
  const api::ResourceRequirements& pod = *spec.resources;
  field::Path path = field::Path("spec").Child("resources");
  if (spec.IsWindows()) return {field::Forbidden(path, "may not be set for a windows pod")};
  if (pod.claims_set) {
    errs.push_back(
        field::Forbidden(path.Child("claims"), "claims may not be set for Resources at pod-level"));
  }
  field::Append(errs, ValidateRequirements(pod, Level::kPod, path, gates, pod_claim_names));

  // Consistency between the pod's resources and its containers' (current upstream rules).
  // The aggregates are only needed for what the pod itself sets.
  ResourceList aggregate_requests;
  if (!pod.requests.empty()) aggregate_requests = api::AggregateContainerRequests(spec);
  for (const auto& [name, ctr_total] : aggregate_requests) {
    auto pod_req = pod.requests.find(name);
    if (pod_req == pod.requests.end()) continue;
    if (ctr_total.Cmp(pod_req->second) > 0) {
      errs.push_back(field::Invalid(
          path.Child("requests").Key(name), pod_req->second.String(),
          fmt::format("must be greater than or equal to aggregate container requests of {}",
                      ctr_total.String())));
    }
  }
  bool pod_hugepage_limits = false;
  for (const auto& [name, q] : pod.limits) pod_hugepage_limits |= IsHugePageResourceName(name);
  ResourceList aggregate_limits;
  if (pod_hugepage_limits) aggregate_limits = api::AggregateContainerLimits(spec);
  for (const auto& [name, ctr_total] : aggregate_limits) {
    if (!IsHugePageResourceName(name)) continue;
    auto pod_lim = pod.limits.find(name);
    if (pod_lim == pod.limits.end()) continue;
    if (ctr_total.Cmp(pod_lim->second) > 0) {
      errs.push_back(field::Invalid(
          path.Child("limits").Key(name), pod_lim->second.String(),
          fmt::format("must be greater than or equal to aggregate container limits of {}",
                      ctr_total.String())));
    }
  }
  for (const auto& c : spec.containers) {
    for (const auto& [name, ctr_limit] : c.resources.limits) {
      auto pod_lim = pod.limits.find(name);
      if (pod_lim == pod.limits.end()) continue;
      if (ctr_limit.Cmp(pod_lim->second) > 0) {
        // Upstream's (odd but exact) path: spec.resources.containers[i][name].limits.
        field::Path p = path.Child("containers").Index(c.index).Key(name).Child("limits");
        errs.push_back(field::Invalid(p, ctr_limit.String(),
                                      fmt::format("must be less than or equal to pod limits of {}",
                                                  pod_lim->second.String())));
      }
    }
  }
  return errs;
}

}  // namespace podlimits::validation
