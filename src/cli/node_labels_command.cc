#include "cli/node_labels_command.h"

#include <cstdio>
#include <cstdlib>

#include "cgroups/detect.h"
#include "runcwrap/node_feature_labels.h"
#include "webhook/kube_client.h"

namespace podlimits::cli {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 3;

}  // namespace

int NodeLabelsCommand(const NodeLabelsFlags& flags) {
  if (flags.node.empty()) {
    std::fprintf(stderr, "error: --node is required (in a DaemonSet: the downward API's "
                         "spec.nodeName)\n");
    return kExitUsage;
  }
  // A node name is a DNS subdomain: nothing in it needs escaping in the URL path.
  if (flags.node.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") != std::string::npos) {
    std::fprintf(stderr, "error: --node \"%s\" is not a node name (a DNS subdomain)\n",
                 flags.node.c_str());
    return kExitUsage;
  }
  auto layout = cgroups::DetectLayout();
  if (!layout) {
    std::fprintf(stderr, "warning: %s: only ContainerUlimits is declared\n",
                 layout.error().Message().c_str());
  }
  const auto labels = runcwrap::NodeFeatureLabels(layout ? &*layout : nullptr);
  for (const auto& [key, value] : labels) {
    std::printf("%s=%s\n", key.c_str(), value ? value->c_str() : "(removed)");
  }
  const std::string patch = runcwrap::LabelsMergePatch(labels);
  if (flags.dry_run) {
    std::printf("patch: %s\n", patch.c_str());
    return 0;
  }
  if (flags.in_cluster == !flags.kubeconfig.empty()) {
    std::fprintf(stderr, "error: give one of --in-cluster and --kubeconfig\n");
    return kExitUsage;
  }
  auto access = flags.in_cluster
                    ? webhook::InClusterAccess([](const char* k) { return std::getenv(k); })
                    : webhook::KubeconfigAccess(flags.kubeconfig);
  if (!access) {
    std::fprintf(stderr, "error: %s\n", access.error().Message().c_str());
    return kExitUsage;
  }
  webhook::KubeClient client(std::move(*access));
  const std::string target = "/api/v1/nodes/" + flags.node;
  auto answer = client.Patch(target, "application/merge-patch+json", patch);
  if (!answer) {
    std::fprintf(stderr, "error: patch node %s: %s\n", flags.node.c_str(),
                 answer.error().Message().c_str());
    return kExitFailure;
  }
  if (answer->status != 200) {
    std::fprintf(stderr, "error: patch node %s: HTTP %d: %s\n", flags.node.c_str(),
                 answer->status, answer->body.substr(0, 500).c_str());
    return kExitFailure;
  }
  std::printf("node/%s labelled\n", flags.node.c_str());
  return 0;
}

}  // namespace podlimits::cli
