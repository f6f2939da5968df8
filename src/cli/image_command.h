// `podlimits image load SOURCE --name NAME[:TAG] | ls [-o json] | rm NAME[:TAG]`: the local image
// store runtime/image_store.h describes. Exit 0 on success, 1 when the store refuses (no such
// image, a corrupt archive, an image in use), 2 on usage errors.
#pragma once

#include <CLI/CLI.hpp>

namespace podlimits::cli {

// Registers `image` and its subcommands on `app`; the one that runs sets `exit_code`.
void AddImageCommands(CLI::App& app, int& exit_code);

}  // namespace podlimits::cli
