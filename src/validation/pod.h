// Pod API validation: the parts of upstream's ValidatePodCreate / ValidatePodUpdate that pod
// process limits depend on, with upstream's field paths and messages.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "api/objects.h"
#include "codec/node.h"
#include "field/field.h"
#include "validation/feature_gates.h"

namespace podlimits::validation {

struct ValidationResult {
  field::ErrorList errors;
  std::vector<std::string> warnings;  // "spec...: text", as the apiserver returns them
};

ValidationResult ValidatePodCreate(const api::Pod& pod, const FeatureGates& gates);
// Update rules the seeds add (cgroupOptions is immutable), on top of the create rules.
ValidationResult ValidatePodUpdate(const api::Pod& updated, const api::Pod& old,
                                   const FeatureGates& gates);

// `Pod "NAME" is invalid: ERRORS`, the apiserver's Status.message for a 422.
std::string InvalidMessage(std::string_view kind, const api::ObjectMeta& meta,
                           const field::ErrorList& errors);

// Per-area validators (each in its own file), exposed for tests and reuse.
// `pod_claim_names`: the names of spec.resourceClaims, which resources.claims entries refer to.
field::ErrorList ValidateContainerResources(const api::Container& c, const field::Path& path,
                                            const FeatureGates& gates,
                                            const std::set<std::string>& pod_claim_names);
field::ErrorList ValidatePodLevelResources(const api::PodSpec& spec, const FeatureGates& gates,
                                           const std::set<std::string>& pod_claim_names);
// validateOverhead: spec.overhead through the container resource rules (limits only).
field::ErrorList ValidateOverhead(const api::PodSpec& spec, const FeatureGates& gates);
field::ErrorList ValidateResourceClaimNames(const std::vector<api::ResourceClaim>& claims,
                                            const std::set<std::string>& pod_claim_names,
                                            const field::Path& path);
void ValidateUlimits(const api::Container& c, const api::PodSpec& spec, const field::Path& path,
                     ValidationResult& out);
field::ErrorList ValidateCgroupOptions(const api::Container& c, const api::PodSpec& spec,
                                       const field::Path& path);
// ValidatePodSpecificAnnotations' seccomp and AppArmor parts (metadata.annotations).
field::ErrorList ValidatePodSpecificAnnotations(const api::ObjectMeta& meta,
                                                const api::PodSpec& spec);
// ValidatePodSpecificAnnotationUpdates: AppArmor annotations may not be added,
// changed or removed, and the new annotations are validated (again, as upstream does: its
// ValidatePodUpdate runs ValidatePodSpecificAnnotations twice).
field::ErrorList ValidatePodSpecificAnnotationUpdates(const api::ObjectMeta& updated,
                                                      const api::ObjectMeta& old,
                                                      const api::PodSpec& spec);
// On create: deprecated seccomp/AppArmor annotations must agree with the fields set beside them.
field::ErrorList ValidateAnnotationsMatchFields(const api::ObjectMeta& meta,
                                                const api::PodSpec& spec);
// The resolver limits (MaxDNSNameservers, MaxDNSSearchPathsExpanded,
// MaxDNSSearchListCharsExpanded): also what the kubelet trims a pod's resolv.conf to.
inline constexpr std::size_t kMaxDNSNameservers = 3;
inline constexpr std::size_t kMaxDNSSearchPaths = 32;
inline constexpr std::size_t kMaxDNSSearchListChars = 2048;
// The search line's length: the paths joined by single spaces.
std::size_t SearchLineLength(const std::vector<std::string>& searches);
// validateDNSPolicy, validatePodDNSConfig, spec.hostname / spec.subdomain (DNS labels) and
// ValidateHostAliases (pod_dns.cc).
field::ErrorList ValidateDNSPolicy(const api::PodSpec& spec);
field::ErrorList ValidatePodDNSConfig(const api::PodSpec& spec);
field::ErrorList ValidatePodHostnames(const api::PodSpec& spec);
field::ErrorList ValidateHostAliases(const api::PodSpec& spec);
// spec.os.name windows / linux: what the other OS's settings may not set.
field::ErrorList ValidateWindows(const api::PodSpec& spec);
field::ErrorList ValidateLinux(const api::PodSpec& spec);
// validateEphemeralContainers' own rules for one ephemeral container (ephemeral_containers.cc):
// targetContainerName names a container or init container, the members upstream's allow list
// refuses are not set, volume mounts have no subPath or subPathExpr.
field::ErrorList EphemeralContainerRules(const api::Container& c, const api::PodSpec& spec);
// ValidatePodEphemeralContainersUpdate: `updated` is `old` with the ephemeral containers of the
// request (the subresource's strategy keeps nothing else of it); `updated_list` and `old_list` are
// their spec.ephemeralContainers trees (null: none), compared by name: an existing one may be
// neither removed nor changed.
ValidationResult ValidatePodEphemeralContainersUpdate(const api::Pod& updated, const api::Pod& old,
                                                      const codec::Node* updated_list,
                                                      const codec::Node* old_list,
                                                      const FeatureGates& gates);
field::ErrorList ValidateCgroupOptionsUpdate(const api::Container& updated,
                                             const api::Container& old, const field::Path& path);

}  // namespace podlimits::validation
