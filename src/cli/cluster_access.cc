#include "cli/cluster_access.h"

#include <cstdlib>

namespace podlimits::cli {

Result<webhook::ClusterAccess> ClusterAccessOf(const std::string& kubeconfig, bool in_cluster) {
  if (in_cluster) return webhook::InClusterAccess([](const char* k) { return std::getenv(k); });
  return webhook::KubeconfigAccess(kubeconfig);
}

}  // namespace podlimits::cli
