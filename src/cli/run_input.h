// The input of `podlimits run`: its files decoded and admitted as the apiserver would, down to
// the one pod to run.
#pragma once

#include <optional>
#include <string>

#include "api/objects.h"
#include "api/pod_object.h"
#include "cli/run_command.h"
#include "kubelet/status/pod_status.h"
#include "kubelet/volumes/object_source.h"
#include "validation/feature_gates.h"

namespace podlimits::cli {

struct RunInput {
  // The one pod, admitted: the object as the API holds it and the typed view admission built.
  std::optional<api::PodObject> pod;
  // The admitted ConfigMaps and Secrets of the input, which the pod may read.
  kubelet::StaticObjectSource objects;
  int exit_code = 0;            // when there is none: 1 rejected, 2 usage
  // The pod the input decoded to, when API admission rejected it: the apiserver's reason and
  // Status.message, for the -o json status.
  std::optional<kubelet::RejectedPod> rejected;
};

// Prints what the apiserver would (warnings, `Error from server (...)` lines) on stderr.
RunInput AdmitRunInput(const RunFlags& flags, const validation::FeatureGates& gates);

}  // namespace podlimits::cli
