// `podlimits webhook`: the AdmissionReview server for real clusters (webhook/).
#pragma once

#include <CLI/CLI.hpp>

namespace podlimits::cli {

// Registers the command on `app`; when it runs, it sets `exit_code`.
void AddWebhookCommand(CLI::App& app, int& exit_code);

}  // namespace podlimits::cli
