// `--node-config FILE` loaded: the file's configuration, or the built-in defaults without one.
#pragma once

#include <optional>
#include <string>

#include "base/error.h"
#include "kubelet/config/node_config.h"

namespace podlimits::cli {

struct LoadedNodeConfig {
  kubelet::NodeConfig config;
  // The bytes the configuration was parsed from (nullopt: the defaults), for `serve`'s pod
  // monitors, which must run on the very configuration serve loaded (serve/node_config_snapshot.h).
  std::optional<std::string> text;
};

// An error (exit 2) names the file: `unable to read node config "F": ...`, or the parser's.
Result<LoadedNodeConfig> LoadNodeConfigOrDefault(const std::string& path);

}  // namespace podlimits::cli
