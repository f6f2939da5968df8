// The managedFields entry kube-apiserver records for a write of the node's own components, which
// here write the object store directly instead of through the API: what a cluster's objects show
// under `kubectl get -o yaml --show-managed-fields`, and what a later server-side apply conflicts
// with.
//
//   kubelet         Update, subresource status: a pod's status (the status manager's PATCH of
//                   pods/status), the node's status (nodes/status); Update without subresource:
//                   the Node it registers, its Lease, its events
//   kube-scheduler  Update, subresource status: the PodScheduled=False condition of a pod it
//                   cannot place (its status patch); its events. The binding records nothing:
//                   pods/binding writes storage directly, past the field manager.
//   kube-controller-manager  Update: the node lifecycle controller's taints on the Node
//
// The fields are tracked as for any writer (fieldmanager/field_manager.h): an object that has no
// managedFields is not tracked on update, a create always is.
#pragma once

#include <string_view>

#include "codec/node.h"

namespace podlimits::nodeagent {

inline constexpr std::string_view kKubeletManager = "kubelet";
inline constexpr std::string_view kSchedulerManager = "kube-scheduler";
inline constexpr std::string_view kControllerManager = "kube-controller-manager";

// Sets next's metadata.managedFields for a write by `manager` of `resource` ("pods", "nodes",
// "leases", "events"), to `subresource` ("" or "status"); `live` is the stored object, nullptr
// for a create.
void RecordManagedWrite(std::string_view resource, std::string_view subresource,
                        std::string_view manager, const codec::Node* live, codec::Node& next);

}  // namespace podlimits::nodeagent
