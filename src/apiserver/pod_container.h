// Which container of a pod a log, exec or attach request names: the apiserver's
// validateContainer, with its messages.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "api/node.h"
#include "apiserver/api_errors.h"

namespace podlimits::apiserver {

// Every container's name: init containers, containers, ephemeral containers, in that order.
std::vector<std::string> PodContainerNames(const api::Node& pod);

// `requested`, or the pod's only container when it is empty. Errors (BadRequest):
// `a container name must be specified for pod web, choose one of: [a b]`,
// `container x is not valid for pod web`.
std::expected<std::string, ApiError> ResolvePodContainer(const api::Node& pod,
                                                         std::string_view requested,
                                                         std::string_view pod_name);

}  // namespace podlimits::apiserver
