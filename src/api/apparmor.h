// The deprecated AppArmor annotations (container.apparmor.security.beta.kubernetes.io/<name>)
// and their version skew with the appArmorProfile fields (KEP-24). The apiserver copies an
// annotation into its container's empty field on create (podStrategy applyAppArmorVersionSkew);
// Pod Security evaluates the pod as it will be stored, so both use this.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"

namespace podlimits::api {

inline constexpr std::string_view kAppArmorAnnotationPrefix =
    "container.apparmor.security.beta.kubernetes.io/";

// podutil.ApparmorFieldForAnnotation: "unconfined", "runtime/default", "localhost/<profile>";
// "localhost/" alone and any other value have no field.
std::optional<AppArmorProfile> AppArmorFieldForAnnotation(std::string_view value);

// ValidateAppArmorProfileField finds nothing wrong (Localhost needs a profile that is non-empty,
// not padded with whitespace and at most 4095 bytes).
bool ValidAppArmorProfileField(const AppArmorProfile& profile);

// What applyAppArmorVersionSkew does for one container that has an annotation but no field.
struct AppArmorSkew {
  ContainerKind kind;
  std::size_t index;
  std::string annotation_key;
  std::optional<AppArmorProfile> copy;  // the field to set (unless it equals the pod's profile)
  bool warn;                            // the deprecation warning is due
};

// Nothing for Windows pods. Containers in upstream's VisitContainers order (init, regular,
// ephemeral).
std::vector<AppArmorSkew> AppArmorVersionSkew(const Pod& pod);

// Applies the copies to a typed view.
void ApplyAppArmorSkew(PodSpec& spec, const std::vector<AppArmorSkew>& skew);

// `metadata.annotations[KEY]: deprecated since v1.30; use the "appArmorProfile" field instead`.
std::string AppArmorDeprecationWarning(std::string_view annotation_key);

}  // namespace podlimits::api
