// A container's environment as the kubelet makes it (makeEnvironmentVariables):
//
//   1. envFrom, in order: every key of the ConfigMap's `data` (not binaryData) or the Secret's
//      `data`, with the prefix; a key that is not a valid environment variable name is skipped
//      and named in one InvalidEnvironmentVariableNames Warning per source; a missing optional
//      source is skipped.
//   2. env, in order: `value` with `$(NAME)` expanded against what is set so far; or
//      valueFrom.fieldRef (the pod's field), resourceFieldRef (the container's limit or
//      request, an unset limit filled from the node's allocatable, divided by the divisor and
//      rounded up), configMapKeyRef / secretKeyRef (a missing optional source or key skips the
//      variable). A later entry of the same name replaces an earlier one in its place.
//
// A missing required source or key is the container's CreateContainerConfigError, with the
// kubelet's words: `configmap "app" not found`, `couldn't find key db in ConfigMap default/app`.
#pragma once

#include <string>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "cri/oci_process.h"
#include "kubelet/events/events.h"
#include "kubelet/volumes/object_source.h"

namespace podlimits::kubelet {

struct EnvContext {
  const api::Pod* pod = nullptr;
  std::string node_name;
  const ObjectSource* objects = nullptr;  // null: no ConfigMap or Secret exists
  api::ResourceList allocatable;          // the node's (node_resources.h)
  // status.podIP(s) and status.hostIP(s) (podFieldSelectorRuntimeValue): the pod's addresses
  // (pod_network.h; the node's with hostNetwork) and the node's.
  std::vector<std::string> pod_ips;
  std::vector<std::string> host_ips;
};

struct ContainerEnv {
  cri::EnvList env;
  std::vector<Event> warnings;  // InvalidEnvironmentVariableNames
};

Result<ContainerEnv> MakeEnvironmentVariables(const EnvContext& ctx,
                                              const api::Container& container);

// The value of a resourceFieldRef for `container` of `pod` (ExtractContainerResourceValue after
// defaultPodLimitsForDownwardAPI): `unsupported container resource : limits.gpu`, or
// `container foo not found` for a containerName the pod lacks.
Result<std::string> ContainerResourceValue(const api::ResourceFieldRef& ref, const api::Pod& pod,
                                           const api::Container& container,
                                           const api::ResourceList& allocatable);

}  // namespace podlimits::kubelet
