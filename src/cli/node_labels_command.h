// `podlimits node-labels`: the node's feature labels (runcwrap/node_feature_labels.h), written
// to its Node object through the API (the installer DaemonSet runs it on every node).
#pragma once

#include <string>

namespace podlimits::cli {

struct NodeLabelsFlags {
  std::string node;
  std::string kubeconfig;
  bool in_cluster = false;
  bool dry_run = false;  // print the labels and the patch, write nothing
};

int NodeLabelsCommand(const NodeLabelsFlags& flags);

}  // namespace podlimits::cli
