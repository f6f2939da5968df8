// `podlimits node-labels`: the node's feature labels (runcwrap/node_feature_labels.h), written
// to its Node object through the API (the installer DaemonSet runs it on every node).
#pragma once

#include <CLI/CLI.hpp>

namespace podlimits::cli {

// Registers the command on `app`; when it runs, it sets `exit_code`.
void AddNodeLabelsCommand(CLI::App& app, int& exit_code);

}  // namespace podlimits::cli
