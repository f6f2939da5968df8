#include "nri/nri_connection.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "base/unique_fd.h"

namespace podlimits::nri {
namespace {

constexpr std::uint32_t kRegisterStream = 1;  // the plugin's first (and only) call

Result<void> WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return SystemError("write", "NRI socket", errno, "");
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Result<UniqueFd> Dial(const std::filesystem::path& socket) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = socket.string();
  if (path.size() >= sizeof(addr.sun_path)) {
    return Failure("connect", socket, "socket path too long");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return SystemError("socket", socket, errno, "");
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return SystemError("connect", socket, errno, "");
  }
  return fd;
}

void Sleep(std::chrono::milliseconds total, const std::atomic<bool>& stop) {
  for (auto slept = std::chrono::milliseconds(0); slept < total && !stop.load();
       slept += std::chrono::milliseconds(50)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

Result<void> ServeConnection(int fd, NriPlugin& plugin, const NriConfig& config,
                             const std::atomic<bool>& stop) {
  TtrpcRequest reg{std::string(kRuntimeService), "RegisterPlugin",
                   EncodeRegisterPluginRequest(config.plugin_name, config.plugin_index), 0};
  auto sent = WriteAll(fd, MuxFrames(kRuntimeServiceConn,
                                     TtrpcMessageBytes(kRegisterStream, TtrpcType::kRequest,
                                                       EncodeTtrpcRequest(reg))));
  if (!sent) return sent;

  MuxReader mux;
  TtrpcReader plugin_stream;   // the runtime's calls
  TtrpcReader runtime_stream;  // the answer to RegisterPlugin
  std::string buffer(64 * 1024, '\0');
  while (!stop.load()) {
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, 200);
    if (ready < 0 && errno != EINTR) return SystemError("poll", "NRI socket", errno, "");
    if (ready <= 0) continue;
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return SystemError("read", "NRI socket", errno, "");
    }
    if (n == 0) {
      if (mux.Pending() > 0 || plugin_stream.Pending() > 0) {
        return Failure(fmt::format("the runtime closed the NRI socket in the middle of a "
                                   "message ({} bytes of a truncated frame)",
                                   mux.Pending() + plugin_stream.Pending()));
      }
      return {};  // the runtime went away (a restart)
    }
    mux.Feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    for (;;) {
      auto frame = mux.Next();
      if (!frame) return std::unexpected(frame.error());
      if (!*frame) break;
      if ((*frame)->conn == kRuntimeServiceConn) {
        runtime_stream.Feed((*frame)->payload);
        for (;;) {
          auto msg = runtime_stream.Next();
          if (!msg) return std::unexpected(msg.error());
          if (!*msg) break;
          if ((*msg)->type != TtrpcType::kResponse || (*msg)->stream_id != kRegisterStream) continue;
          auto resp = DecodeTtrpcResponse((*msg)->payload);
          if (!resp) return std::unexpected(resp.error());
          if (resp->code != kCodeOk) {
            return Failure(fmt::format("the runtime refused to register plugin {} (index {}): {}",
                                       config.plugin_name, config.plugin_index, resp->message));
          }
        }
        continue;
      }
      if ((*frame)->conn != kPluginServiceConn) continue;  // as NRI's mux: no such connection
      plugin_stream.Feed((*frame)->payload);
      for (;;) {
        auto msg = plugin_stream.Next();
        if (!msg) return std::unexpected(msg.error());
        if (!*msg) break;
        if ((*msg)->type != TtrpcType::kRequest) continue;
        TtrpcResponse response;
        if (auto req = DecodeTtrpcRequest((*msg)->payload)) {
          response = plugin.Handle(*req);
        } else {
          response = {kCodeInvalidArgument, req.error().Message(), {}};
        }
        auto ok = WriteAll(fd, MuxFrames(kPluginServiceConn,
                                         TtrpcMessageBytes((*msg)->stream_id, TtrpcType::kResponse,
                                                           EncodeTtrpcResponse(response))));
        if (!ok) return ok;
        if (plugin.ShutdownRequested()) return {};
      }
    }
  }
  return {};
}

int RunNriPlugin(const NriRunOptions& options, NriPlugin& plugin, const NriConfig& config,
                 const std::atomic<bool>& stop, const NriPlugin::Log& log) {
  bool said_waiting = false;
  while (!stop.load()) {
    auto fd = Dial(options.socket);
    if (!fd) {
      // Said once per outage, not once per retry.
      if (!said_waiting) log("info", fmt::format("waiting for the runtime: {}", fd.error().Message()));
      said_waiting = true;
      Sleep(options.retry, stop);
      continue;
    }
    said_waiting = false;
    log("info", fmt::format("connected to {}; registering as {} (index {})",
                            options.socket.string(), config.plugin_name, config.plugin_index));
    auto served = ServeConnection(fd->get(), plugin, config, stop);
    fd->Reset();
    if (!served) {
      log("error", fmt::format("NRI connection dropped: {}", served.error().Message()));
    } else if (!stop.load()) {
      log("info", plugin.ShutdownRequested() ? "the runtime shut NRI down; reconnecting"
                                             : "the runtime closed the connection; reconnecting");
    }
    plugin.ConnectionEnded();
    // A runtime that refused or broke the connection is not redialled in a tight loop.
    if (!served) Sleep(options.retry, stop);
  }
  return 0;
}

}  // namespace podlimits::nri
