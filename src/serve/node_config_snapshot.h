// The node configuration serve started with, for its pods' monitors.
//
// A monitor (nodeagent/pod_monitor.h) runs the kubelet library for one pod and needs the node's
// configuration. Handing it the path serve was given made it read the file again: an edit while
// serve runs gave new monitors a node different from the daemon's (another podPidsLimit than
// the Node object publishes, say). So serve writes the bytes it read, once per start and
// read-only, into its data directory, and every monitor reads that copy: the pods of one serve
// all run on the node that serve probed and published. No file: serve runs on the built-in
// defaults, and so do its monitors.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "base/error.h"
#include "kubelet/config/node_config.h"

namespace podlimits::serve {

// Replaces the data directory's snapshot with `text` (mode 0400), or removes it when serve runs
// on the defaults (nullopt).
Result<void> WriteNodeConfigSnapshot(const std::filesystem::path& data_dir,
                                     const std::optional<std::string>& text);

// The configuration of the serve that started this monitor.
Result<kubelet::NodeConfig> ReadNodeConfigSnapshot(const std::filesystem::path& data_dir);

}  // namespace podlimits::serve
