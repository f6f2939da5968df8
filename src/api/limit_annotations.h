// The annotations through which pods ask for podlimits' fields on clusters whose API has not
// got them (the seeds' fields are alpha at best there). Each annotation stands for a field and
// is turned into it before validation and admission, so the same rules give the same messages:
//
//   - ulimits.noderesource.dev/container.<name> (and its deprecated former key
//     ulimits.nri.containerd.io/container.<name>, with a warning): that container's
//     securityContext.ulimits, in containerd NRI ulimit-adjuster's format, a YAML list of
//     {type, soft, hard} with type as RLIMIT_NOFILE, rlimit_nofile or nofile (a missing soft or
//     hard is 0, as the adjuster reads it);
//   - podlimits.dev/pod-pid-limit: spec.resources.limits.pid (a quantity);
//   - podlimits.dev/writable-cgroups.container.<name> and NRI writable-cgroups'
//     cgroups.noderesource.dev/writable.container.<name>: "true" (Go's ParseBool) is that
//     container's securityContext.cgroupOptions.mountMode Writable; the pod-wide
//     cgroups.noderesource.dev/writable and CRI-O's io.kubernetes.cri-o.cgroup2-mount-hierarchy-rw
//     make every container Writable, init containers included, unless a container's own key
//     says otherwise. "false" asks for nothing: read-only is what a container gets anyway.
//
// An annotation that does not parse, names no container of the pod, or disagrees with the
// field the pod also sets is an error naming the annotation (metadata.annotations[KEY]).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codec/node.h"
#include "field/field.h"

namespace podlimits::api {

inline constexpr std::string_view kUlimitsKeyPrefix = "ulimits.noderesource.dev/container.";
inline constexpr std::string_view kDeprecatedUlimitsKeyPrefix =
    "ulimits.nri.containerd.io/container.";
inline constexpr std::string_view kPodPidLimitKey = "podlimits.dev/pod-pid-limit";
inline constexpr std::string_view kWritableKeyPrefix = "podlimits.dev/writable-cgroups.container.";
inline constexpr std::string_view kNriWritableKey = "cgroups.noderesource.dev/writable";
inline constexpr std::string_view kNriWritableKeyPrefix = "cgroups.noderesource.dev/writable.container.";
inline constexpr std::string_view kCrioWritableKey = "io.kubernetes.cri-o.cgroup2-mount-hierarchy-rw";

struct AnnotatedFields {
  field::ErrorList errors;
  std::vector<std::string> warnings;
  bool any = false;  // the pod asks for a podlimits field (by annotation or field)
};

// Whether `key` is one of the annotations above.
bool IsLimitAnnotation(std::string_view key);
// The container a per-container key names ("app" for ulimits.noderesource.dev/container.app);
// nullopt for a pod-wide key or any other.
std::optional<std::string_view> AnnotatedContainer(std::string_view key);
// Whether `key` asks for a writable cgroup mount (per container or pod-wide).
bool IsWritableAnnotation(std::string_view key);

// Writes the fields the annotations of `pod` (a Pod object) stand for into it.
AnnotatedFields ApplyLimitAnnotations(codec::Node& pod);

}  // namespace podlimits::api
