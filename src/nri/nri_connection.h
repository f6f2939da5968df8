// `podlimits nri`'s connection to the runtime, as NRI's own stub (pkg/stub) makes it:
//
//   1. dial the runtime's socket (/var/run/nri/nri.sock); while it is absent or refuses, retry
//      every `retry` (the runtime may not be up yet, or is restarting);
//   2. multiplex it (ttrpc_wire.h): serve the Plugin service on connection 1, and on connection
//      2 call Runtime.RegisterPlugin(name, index);
//   3. answer the runtime's calls (Configure, Synchronize, the events: nri_plugin.h) one at a
//      time, in the order they arrive;
//   4. when the runtime closes the socket (a restart) or sends Shutdown, go back to 1.
//
// A malformed call is answered with an error on its own stream and logged once; a frame that
// breaks the mux or ttrpc framing (oversized, reserved connection, unknown type) leaves nothing
// to trust on that socket: it is logged, closed, and the plugin reconnects.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>

#include "base/error.h"
#include "nri/nri_plugin.h"

namespace podlimits::nri {

// Serves one connection (`fd`, connected) until the runtime closes it, sends Shutdown or `stop`
// is set. Returns the reason it ended as an error only for a broken connection.
Result<void> ServeConnection(int fd, NriPlugin& plugin, const NriConfig& config,
                             const std::atomic<bool>& stop);

struct NriRunOptions {
  std::filesystem::path socket = "/var/run/nri/nri.sock";
  std::chrono::milliseconds retry{1000};
};

// Steps 1-4 until `stop` is set. Returns 0 then.
int RunNriPlugin(const NriRunOptions& options, NriPlugin& plugin, const NriConfig& config,
                 const std::atomic<bool>& stop, const NriPlugin::Log& log);

}  // namespace podlimits::nri
