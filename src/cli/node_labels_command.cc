#include "cli/node_labels_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include "cgroups/detect.h"
#include "cli/cluster_access.h"
#include "cli/exit_codes.h"
#include "cli/flags.h"
#include "runcwrap/node_feature_labels.h"
#include "webhook/kube_client.h"

namespace podlimits::cli {
namespace {

struct NodeLabelsFlags {
  std::string node;
  std::string kubeconfig;
  bool in_cluster = false;
  bool dry_run = false;  // print the labels and the patch, write nothing
};

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
    return kExitOk;
  }
  if (flags.in_cluster == !flags.kubeconfig.empty()) {
    std::fprintf(stderr, "error: give one of --in-cluster and --kubeconfig\n");
    return kExitUsage;
  }
  auto access = ClusterAccessOf(flags.kubeconfig, flags.in_cluster);
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
    return kExitNodeFailure;
  }
  if (answer->status != 200) {
    std::fprintf(stderr, "error: patch node %s: HTTP %d: %s\n", flags.node.c_str(),
                 answer->status, answer->body.substr(0, 500).c_str());
    return kExitNodeFailure;
  }
  std::printf("node/%s labelled\n", flags.node.c_str());
  return kExitOk;
}

}  // namespace

void AddNodeLabelsCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<NodeLabelsFlags>();
  CLI::App* cmd = app.add_subcommand(
      "node-labels",
      "Label this node's Node object with the features podlimits-runc gives it "
      "(feature.podlimits.dev/*), for the podlimits RuntimeClasses");
  cmd->add_option("--node", flags->node, "This node's name")->required();
  AddClusterAccessFlags(cmd, flags->kubeconfig, flags->in_cluster,
                        "The API through this kubeconfig", "The API with the pod's service account");
  cmd->add_flag("--dry-run", flags->dry_run, "Print the labels and the patch only");
  cmd->callback([flags, &exit_code] { exit_code = NodeLabelsCommand(*flags); });
}

}  // namespace podlimits::cli
