// ownerReferences and the pod facts every workload controller reads (pkg/controller's
// controller_utils.go): who controls an object, which pods are active, ready and available, and
// the pod a controller creates from its template.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "codec/node.h"
#include "controllers/api_client.h"

namespace podlimits::controllers {

// The ownerReference a controller puts on what it creates: controller and blockOwnerDeletion
// true.
codec::Node ControllerReference(const codec::Node& owner);

// Whether `object`'s controller ownerReference names `owner_uid`.
bool ControlledBy(const codec::Node& object, std::string_view owner_uid);

// The uid of the object's controller, "" when it has none.
std::string ControllerUid(const codec::Node& object);

// FilterActivePods: not Succeeded, not Failed, not being deleted.
bool IsPodActive(const codec::Node& pod);
bool IsPodTerminating(const codec::Node& pod);
bool IsPodReady(const codec::Node& pod);
// Ready for at least `min_ready_seconds` at `now` (IsPodAvailable).
bool IsPodAvailable(const codec::Node& pod, std::int64_t min_ready_seconds,
                    std::chrono::sys_seconds now);

// The pods of `namespace_` that `owner_uid` controls.
std::vector<Object> OwnedPods(const ApiClient& api, std::string_view namespace_,
                              std::string_view owner_uid);

// GetPodFromTemplate: a Pod to create for `owner` from its spec.template, generateName
// `<owner name>-`, the template's labels, annotations and finalizers, the controller reference.
codec::Node PodFromTemplate(const codec::Node& owner);

}  // namespace podlimits::controllers
