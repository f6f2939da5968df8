#include "cli/nri_command.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "base/server_process.h"
#include "cli/exit_codes.h"
#include "nri/nri_connection.h"

namespace podlimits::cli {
namespace {

struct NriFlags {
  std::string config;
  std::string socket = std::string(nri::kDefaultSocketPath);
};

void Log(std::string_view level, std::string_view message) {
  std::fprintf(stderr, "podlimits nri: %.*s: %.*s\n", static_cast<int>(level.size()),
               level.data(), static_cast<int>(message.size()), message.data());
}

int NriCommand(const NriFlags& flags) {
  auto config = nri::LoadNriConfig(flags.config);
  if (!config) {
    Log("error", "--config: " + config.error().Message());
    return kExitUsage;
  }
  // The signals are waited for by one thread, not handled: blocked before it starts.
  const sigset_t stop_signals = BlockStopSignals();
  std::atomic<bool> stop{false};
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    stop = true;
  });
  nri::NriPlugin plugin(*config, nri::RealNodeSeams(), Log);
  nri::NriRunOptions options;
  options.socket = flags.socket;
  int status = nri::RunNriPlugin(options, plugin, *config, stop, Log);
  waiter.join();
  Log("info", "stopped");
  return status;
}

}  // namespace

void AddNriCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<NriFlags>();
  CLI::App* cmd = app.add_subcommand(
      "nri", "NRI plugin: the pods' rlimits, pids.max and writable cgroups through the runtime");
  cmd->add_option("--config", flags->config,
                  "pluginName, pluginIndex, writableCgroups, defaultUlimits (YAML; default "
                  "/etc/podlimits/nri.yaml when it exists)");
  cmd->add_option("--socket", flags->socket, "The runtime's NRI socket (default " +
                                                 std::string(nri::kDefaultSocketPath) + ")");
  cmd->callback([flags, &exit_code] { exit_code = NriCommand(*flags); });
}

}  // namespace podlimits::cli
