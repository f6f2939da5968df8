// `podlimits webhook`: the AdmissionReview server for real clusters (webhook/).
#pragma once

#include <string>

namespace podlimits::cli {

struct WebhookFlags {
  std::string cert_file, key_file;
  std::string listen = "0.0.0.0:8443";  // in its pod, behind the webhook's Service
  std::string config;
  std::string kubeconfig;  // the cluster's Namespaces and LimitRanges through this kubeconfig
  bool in_cluster = false;  // ... or through the pod's service account
  int drain_seconds = 10;
};

int WebhookCommand(const WebhookFlags& flags);

}  // namespace podlimits::cli
