// `podlimits serve` (and `serve backup`, and the hidden `pod-monitor` its node agent starts):
// the flags, parsed here, for the library in src/serve, which does the rest.
#pragma once

#include <CLI/CLI.hpp>

namespace podlimits::cli {

// Registers the commands on `app`; the one that runs sets `exit_code`.
void AddServeCommands(CLI::App& app, int& exit_code);

}  // namespace podlimits::cli
