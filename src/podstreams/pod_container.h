// The pod a log, exec, attach or port-forward request is about, and which container of it the
// request names: the apiserver's validateContainer, with its messages.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "listwatch/api_errors.h"
#include "codec/node.h"
#include "storage/object_store.h"

namespace podlimits::apiserver {

// The stored pod: NotFound (`pods "x" not found`), or InternalError when the store fails.
std::expected<codec::Node, ApiError> LoadPod(storage::ObjectStore& store, const storage::ObjectKey& key);

// The spec of the container called `name` (app, init or ephemeral), or null.
const codec::Node* PodContainerSpec(const codec::Node& pod, std::string_view name);

// Every container's name: init containers, containers, ephemeral containers, in that order.
std::vector<std::string> PodContainerNames(const codec::Node& pod);

// `requested`, or the pod's only container when it is empty. Errors (BadRequest):
// `a container name must be specified for pod web, choose one of: [a b]`,
// `container x is not valid for pod web`.
std::expected<std::string, ApiError> ResolvePodContainer(const codec::Node& pod,
                                                         std::string_view requested,
                                                         std::string_view pod_name);

}  // namespace podlimits::apiserver
