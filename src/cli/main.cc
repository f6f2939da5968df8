// The podlimits command. The command-line contract is in DESIGN.md; change it only by extending.
// Each command registers its flags and its action here; CLI11 parses the command line once and
// runs the action of the command given, which sets the exit code (exit_codes.h).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string_view>
#include <vector>

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

namespace {

// The top-level commands each function registers, in the order `podlimits --help` lists them.
struct Commands {
  std::array<std::string_view, 2> names;
  void (*add)(CLI::App&, int&);
};
constexpr std::array<Commands, 9> kCommands = {{
    {{"validate", "admit"}, AddAdmitCommands},
    {{"node-info"}, AddNodeInfoCommand},
    {{"run"}, AddRunCommand},
    {{"serve", "pod-monitor"}, AddServeCommands},
    {{"webhook"}, AddWebhookCommand},
    {{"nri"}, AddNriCommand},
    {{"node-labels"}, AddNodeLabelsCommand},
    {{"recommend"}, AddRecommendCommand},
    {{"image"}, AddImageCommands},
}};

// The commands to register: the one argv[1] names, or every one when it names none (help, a
// misspelt command, an option first), so that CLI11 lists them or says which it did not find.
// Registering all of them builds every command's options, validators and callbacks: 0.13 ms of
// each `podlimits run`'s own CPU (docs/benchmarks.md). What one command accepts and prints does
// not depend on its siblings.
std::vector<const Commands*> CommandsToRegister(int argc, char** argv) {
  std::vector<const Commands*> out;
  const std::string_view first = argc > 1 ? argv[1] : "";
  for (const Commands& c : kCommands) {
    if (!first.empty() && std::find(c.names.begin(), c.names.end(), first) != c.names.end()) {
      return {&c};
    }
    out.push_back(&c);
  }
  return out;
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{"podlimits: Kubernetes pod process limits — admission and enforcement"};
  app.require_subcommand(1);
  int exit_code = kExitOk;
  for (const Commands* c : CommandsToRegister(argc, argv)) c->add(app, exit_code);
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
