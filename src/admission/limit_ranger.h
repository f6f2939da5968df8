// The LimitRanger admission plugin (plugin/pkg/admission/limitranger), for pod creation: the
// mutating half fills missing container requests and limits from a namespace's LimitRanges and
// records that in the `kubernetes.io/limit-ranger` annotation; the validating half enforces the
// min / max / maxLimitRequestRatio constraints per container and per pod, with kube-apiserver's
// messages. Quantities are compared exactly (the variant of upstream PR #141348), never through
// float64 or wrapped int64 projections.
//
// podlimits extension (KEP-6063 story 2, "enforce spec.resources.limits.pid on tenant pods via
// default LimitRanges"), active when PerPodPIDLimit and PodLevelResources are on:
//   * a `Pod` item's default.pid fills spec.resources.limits.pid when the pod has none, recorded
//     in the annotation as "pid limit for pod" after the container entries;
//   * a `Pod` item's max.pid / min.pid bound spec.resources.limits.pid. pid has no request, so
//     both bounds are checked against the limit, and a missing limit is reported with the
//     "No limit is specified" form for min as well as for max;
//   * with the gates off, pid entries of `Pod` items are ignored (the pod cannot carry a pid
//     limit then, and rejecting every pod for lacking one would be wrong).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"
#include "codec/node.h"
#include "resource/quantity.h"
#include "validation/feature_gates.h"

namespace podlimits::admission {

inline constexpr std::string_view kLimitRangerAnnotation = "kubernetes.io/limit-ranger";

class LimitRanger {
 public:
  // `limit_ranges`: the pod's namespace's LimitRanges, API-defaulted, in the order they apply
  // (upstream's lister order). The first one that rejects a pod decides the message.
  LimitRanger(std::vector<api::LimitRange> limit_ranges, validation::FeatureGates gates);

  // Mutating admission on the pod's tree. Each LimitRange in turn fills only what is still
  // missing, so the first one to default a key wins; the annotation is replaced by each
  // LimitRange that sets something and left alone otherwise. Never fails.
  void Admit(codec::Node& pod_tree) const;

  // Validating admission: std::nullopt when the pod is admitted, otherwise the apiserver's
  // Status.message (HTTP 403, reason Forbidden): `pods "NAME" is forbidden: ERRORS`, NAME as
  // ForbiddenMessage picks it, and ERRORS the aggregate of the first rejecting LimitRange's
  // messages (de-duplicated, bracketed when more than one).
  std::optional<std::string> Validate(const api::Pod& pod) const;

  // PersistentVolumeClaim items against a PVC's storage requests; the Status.message
  // (`persistentvolumeclaims "NAME" is forbidden: ...`) when rejected.
  std::optional<std::string> ValidatePersistentVolumeClaim(
      const api::PersistentVolumeClaim& pvc) const;

 private:
  std::vector<std::string> ValidateAgainst(const api::LimitRange& limit_range,
                                           const api::Pod& pod) const;
  bool PidEnabled() const { return gates_.per_pod_pid_limit && gates_.pod_level_resources; }

  std::vector<api::LimitRange> limit_ranges_;
  validation::FeatureGates gates_;
};

// The constraint checks of one LimitRange value against one request and one limit list, each
// returning upstream's message for the first failed check (exposed for tests). `limit_type` is
// the item type as it appears in messages ("Container", "Pod").
std::optional<std::string> MinConstraint(std::string_view limit_type, std::string_view resource,
                                         const resource::Quantity& enforced,
                                         const api::ResourceList& requests,
                                         const api::ResourceList& limits);
std::optional<std::string> MaxConstraint(std::string_view limit_type, std::string_view resource,
                                         const resource::Quantity& enforced,
                                         const api::ResourceList& requests,
                                         const api::ResourceList& limits);
std::optional<std::string> LimitRequestRatioConstraint(std::string_view limit_type,
                                                       std::string_view resource,
                                                       const resource::Quantity& enforced,
                                                       const api::ResourceList& requests,
                                                       const api::ResourceList& limits);
// Min for a limit-only resource (pid): the limit stands where other resources need a request.
std::optional<std::string> LimitOnlyMinConstraint(std::string_view limit_type,
                                                  std::string_view resource,
                                                  const resource::Quantity& enforced,
                                                  const api::ResourceList& limits);

// The pod totals a `Pod` item is checked against (podRequests / podLimits): containers summed
// key by key, sidecars added to the total, the init-container peak (each init container plus
// the sidecars started before it) taken where it is higher, then — with PodLevelResources — the
// pod-level cpu and memory values replacing the aggregate. Spec only: no status, no overhead, no
// ephemeral containers. `pid` (with the pid extension) is the pod-level limit alone.
api::ResourceList PodRequests(const api::Pod& pod, bool pod_level_resources);
api::ResourceList PodLimits(const api::Pod& pod, bool pod_level_resources, bool pid_enabled);

}  // namespace podlimits::admission
