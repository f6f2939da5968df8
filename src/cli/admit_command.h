// `podlimits validate -f FILE...` (API validation only) and `podlimits admit -f FILE...` (the
// apiserver's admission chain, admitted objects to stdout): admission/chain.h over the decoded
// files, reported as report.h describes.
#pragma once

#include <CLI/CLI.hpp>

namespace podlimits::cli {

// Registers both commands on `app`; the one that runs sets `exit_code`.
void AddAdmitCommands(CLI::App& app, int& exit_code);

}  // namespace podlimits::cli
