// The podlimits command. The command-line contract is in DESIGN.md; change it only by extending.
// Each command registers its flags and its action here; CLI11 parses the command line once and
// runs the action of the command given, which sets the exit code (exit_codes.h).
#include <CLI/CLI.hpp>
#include <filesystem>

#include "cli/admit_command.h"
#include "cli/exit_codes.h"
#include "cli/image_command.h"
#include "cli/node_info_command.h"
#include "cli/node_labels_command.h"
#include "cli/recommend_command.h"
#include "cli/run_command.h"
#include "cli/serve_command.h"
#include "cli/nri_command.h"
#include "cli/webhook_command.h"
#include "runcwrap/wrapper.h"

namespace podlimits::cli {

int Main(int argc, char** argv) {
  CLI::App app{"podlimits: Kubernetes pod process limits — admission and enforcement"};
  app.require_subcommand(1);
  int exit_code = kExitOk;
  AddAdmitCommands(app, exit_code);
  AddNodeInfoCommand(app, exit_code);
  AddRunCommand(app, exit_code);
  AddServeCommands(app, exit_code);
  AddWebhookCommand(app, exit_code);
  AddNriCommand(app, exit_code);
  AddNodeLabelsCommand(app, exit_code);
  AddRecommendCommand(app, exit_code);
  AddImageCommands(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  return exit_code;
}

}  // namespace podlimits::cli

int main(int argc, char** argv) {
  // Called as podlimits-runc (a link to this binary), it is a runc-compatible command line, which
  // CLI11 must not see.
  if (argc > 0 && std::filesystem::path(argv[0]).filename() == "podlimits-runc") {
    return podlimits::runcwrap::RuncWrapperMain(argc, argv);
  }
  return podlimits::cli::Main(argc, argv);
}
