// `podlimits run -f FILE [--node-config FILE] [-o json]`: admit the pod as the apiserver would,
// admit it on this node, and run it here with every limit enforced by the kernel.
//
// Output: each container's lines on stdout as "[name] line" (on stderr with -o json, where stdout
// holds only the final PodRunStatus object, kubelet/status/pod_status.h); events on stderr as
// `kubectl describe` lists them. Exit: 0 the pod Succeeded; 1 rejected (admission or node
// admission) or the pod Failed; 2 usage; 3 node or runtime failure.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "api/decode.h"

namespace podlimits::cli {

struct RunFlags {
  std::vector<std::string> files;
  std::string node_config;
  std::string output;      // "" or "json"
  std::string image_root;  // the image store
  api::FieldValidation validate_mode = api::FieldValidation::kStrict;
};

// Registers the command on `app`; when it runs, it sets `exit_code`.
void AddRunCommand(CLI::App& app, int& exit_code);

}  // namespace podlimits::cli
