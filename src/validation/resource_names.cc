#include "validation/resource_names.h"

#include <array>
#include <string>

namespace podlimits::validation {
namespace {

constexpr std::string_view kRequestsPrefix = "requests.";
constexpr std::string_view kNativeDomain = "kubernetes.io/";

constexpr std::array<std::string_view, 20> kStandardResources = {
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
};

constexpr std::array<std::string_view, 3> kStandardContainerResources = {
    "cpu",
    "memory",
    "ephemeral-storage",
};

constexpr std::array<std::string_view, 9> kIntegerResources = {
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
};

template <std::size_t N>
bool Contains(const std::array<std::string_view, N>& set, std::string_view name) {
  for (std::string_view s : set) {
    if (s == name) return true;
  }
  return false;
}

bool HasSlash(std::string_view name) {
  return name.find('/') != std::string_view::npos;
}

}  // namespace

bool IsHugePageResourceName(std::string_view name) {
  return name.starts_with(kHugePagesPrefix);
}

bool IsQuotaHugePageResourceName(std::string_view name) {
  return IsHugePageResourceName(name) || name.starts_with("requests.hugepages-");
}

bool IsStandardResourceName(std::string_view name) {
  return Contains(kStandardResources, name) || IsQuotaHugePageResourceName(name);
}

bool IsStandardContainerResourceName(std::string_view name) {
  return Contains(kStandardContainerResources, name) || IsHugePageResourceName(name);
}

bool IsNativeResource(std::string_view name) {
  return !HasSlash(name) || name.find(kNativeDomain) != std::string_view::npos;
}

bool IsExtendedResourceName(std::string_view name) {
  if (IsNativeResource(name) || name.starts_with(kRequestsPrefix)) return false;
  // The name must survive conversion into its quota form.
  std::string quota_name(kRequestsPrefix);
  quota_name += name;
  return IsQualifiedName(quota_name).empty();
}

bool IsOvercommitAllowed(std::string_view name) {
  return IsNativeResource(name) && !IsHugePageResourceName(name);
}

bool IsIntegerResourceName(std::string_view name) {
  return Contains(kIntegerResources, name) || IsExtendedResourceName(name);
}

field::ErrorList ValidateResourceName(std::string_view name, const field::Path& path) {
  field::ErrorList errs;
  for (auto& msg : IsQualifiedName(name)) {
    errs.push_back(field::Invalid(path, std::string(name), std::move(msg)));
  }
  if (!errs.empty()) return errs;
  if (!HasSlash(name) && !IsStandardResourceName(name)) {
    errs.push_back(field::Invalid(path, std::string(name),
                                  "must be a standard resource type or fully qualified"));
  }
  return errs;
}

field::ErrorList ValidateContainerResourceName(std::string_view name, const field::Path& path) {
  field::ErrorList errs = ValidateResourceName(name, path);
  if (!HasSlash(name)) {
    if (!IsStandardContainerResourceName(name)) {
      errs.push_back(
          field::Invalid(path, std::string(name), "must be a standard resource for containers"));
    }
  } else if (!IsNativeResource(name) && !IsExtendedResourceName(name)) {
    errs.push_back(
        field::Invalid(path, std::string(name), "doesn't follow extended resource name standard"));
  }
  return errs;
}

}  // namespace podlimits::validation
