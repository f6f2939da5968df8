// PUT and PATCH of pods/NAME/ephemeralcontainers, kube-apiserver's podEphemeralContainersStrategy:
// of the request's pod only spec.ephemeralContainers is taken (dropNonEphemeralContainerUpdates:
// the rest is the stored pod), defaulted like a pod's containers, decoded strictly, validated as
// ValidatePodEphemeralContainersUpdate (validation/pod.h: only additions; names unique across
// all containers; the allow list; the seeds' ulimits as on any container) and admitted by Pod
// Security as an UPDATE of the subresource (a new ephemeral container is a significant update).
// LimitRanger ignores subresources, as upstream's. The node starts what was added
// (kubelet/podworker/pod_spec_update.h).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "admission/pod_security.h"
#include "api/objects.h"
#include "codec/node.h"
#include "http/message.h"
#include "validation/feature_gates.h"

namespace podlimits::apiserver {

struct EphemeralContainersUpdate {
  codec::Node next;  // the stored pod with the request's ephemeral containers
  std::vector<std::string> warnings;
};

// `candidate` is the request's pod (a PUT's body or the patched stored pod), `stored` the pod
// as stored, `ns` its namespace. A refusal is the response to send.
std::variant<http::HttpResponse, EphemeralContainersUpdate> UpdateEphemeralContainers(
    const codec::Node& candidate, const codec::Node& stored, const api::Namespace& ns,
    const admission::psa::PodSecurity& security, const validation::FeatureGates& gates,
    const http::HttpRequest& request);

}  // namespace podlimits::apiserver
