// `podlimits node-info [--node-config FILE] [-o text|json] [--field-coverage]`: this node as the
// kubelet library probes it (capacity, allocatable, cgroup mode, runtime, declared features,
// rlimit ceilings; kubelet/node_info.h), or which pod fields it applies (field_coverage.h).
#pragma once

#include <CLI/CLI.hpp>

namespace podlimits::cli {

void AddNodeInfoCommand(CLI::App& app, int& exit_code);

}  // namespace podlimits::cli
