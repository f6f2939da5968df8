// Resource-name rules of pkg/apis/core/helper and pkg/apis/core/validation: which names are
// standard, native, extended, overcommittable or integer-valued, and the two name validators that
// container resources, pod-level resources and LimitRange items share.
//
// Everything here is upstream's behaviour without KEP-6063: `pid` is deliberately not a standard
// resource in these predicates, so a cluster with PerPodPIDLimit off rejects it exactly as
// kube-apiserver does. Callers that know the gate is on (pod-level resources, LimitRange `Pod`
// items) treat kResourcePid before reaching these functions.
#pragma once

#include <string_view>

#include "field/field.h"
#include "validation/object_meta.h"  // IsQualifiedName, which ValidateResourceName applies

namespace podlimits::validation {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourceStorage = "storage";
// KEP-6063 (the seed's spelling; upstream review later renamed it `pids`).
inline constexpr std::string_view kResourcePid = "pid";
inline constexpr std::string_view kHugePagesPrefix = "hugepages-";

// `hugepages-<size>`.
bool IsHugePageResourceName(std::string_view name);
// `hugepages-*` or `requests.hugepages-*` (the quota spelling).
bool IsQuotaHugePageResourceName(std::string_view name);
// cpu, memory, ephemeral-storage, their requests./limits. forms, the object-count quota names,
// storage, requests.storage, services.nodeports, services.loadbalancers and quota hugepages.
bool IsStandardResourceName(std::string_view name);
// cpu, memory, ephemeral-storage or hugepages-*.
bool IsStandardContainerResourceName(std::string_view name);
// No '/' at all, or a name in a kubernetes.io/ domain.
bool IsNativeResource(std::string_view name);
// A qualified, non-native name that also stays qualified as a quota name (`requests.` + name).
bool IsExtendedResourceName(std::string_view name);
// Native resources other than hugepages may have request < limit.
bool IsOvercommitAllowed(std::string_view name);
// Object-count quota names and extended resources hold whole numbers only.
bool IsIntegerResourceName(std::string_view name);

// validateResourceName: qualified-name errors, else "must be a standard resource type or fully
// qualified" for an unprefixed non-standard name.
field::ErrorList ValidateResourceName(std::string_view name, const field::Path& path);
// validateContainerResourceName: ValidateResourceName plus "must be a standard resource for
// containers" (unprefixed) or "doesn't follow extended resource name standard" (prefixed,
// non-native). An unknown unprefixed name therefore gets both messages.
field::ErrorList ValidateContainerResourceName(std::string_view name, const field::Path& path);

}  // namespace podlimits::validation
