// Pod API validation: the parts of upstream's ValidatePodCreate / ValidatePodUpdate that pod
// process limits depend on, with upstream's field paths and messages.
#pragma once

#include <string>
#include <vector>

#include "api/field.h"
#include "api/objects.h"
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
field::ErrorList ValidateContainerResources(const api::Container& c, const field::Path& path,
                                            const FeatureGates& gates);
field::ErrorList ValidatePodLevelResources(const api::PodSpec& spec, const FeatureGates& gates);
void ValidateUlimits(const api::Container& c, const api::PodSpec& spec, const field::Path& path,
                     ValidationResult& out);
field::ErrorList ValidateCgroupOptions(const api::Container& c, const api::PodSpec& spec,
                                       const field::Path& path);
field::ErrorList ValidateCgroupOptionsUpdate(const api::Container& updated,
                                             const api::Container& old, const field::Path& path);

}  // namespace podlimits::validation
