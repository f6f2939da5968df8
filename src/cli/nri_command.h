// `podlimits nri`: the NRI plugin (src/nri) for containerd >= 1.7 and CRI-O >= 1.26.
#pragma once

#include <CLI/CLI.hpp>

namespace podlimits::cli {

// Registers the command on `app`; when it runs, it sets `exit_code`.
void AddNriCommand(CLI::App& app, int& exit_code);

}  // namespace podlimits::cli
