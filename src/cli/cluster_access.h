// How `--kubeconfig F` or `--in-cluster` reach a real cluster's API (webhook/kube_client.h).
#pragma once

#include <string>

#include "base/error.h"
#include "webhook/kube_client.h"

namespace podlimits::cli {

// The cluster through the kubeconfig's current context, or with the pod's service account.
Result<webhook::ClusterAccess> ClusterAccessOf(const std::string& kubeconfig, bool in_cluster);

}  // namespace podlimits::cli
