// The console socket of the OCI runtimes (`create --console-socket PATH` for a spec with
// process.terminal): the runtime connects to it and sends the terminal's master in an
// SCM_RIGHTS message. Listen before `create`; once `create` has returned the connection waits
// in the socket's queue, so receiving needs no thread of its own.
#pragma once

#include <filesystem>

#include "base/error.h"
#include "base/unique_fd.h"

namespace podlimits::cri {

class ConsoleSocket {
 public:
  // Binds and listens at `path` (a leftover socket file there is replaced). The path must fit
  // sun_path (107 bytes).
  static Result<ConsoleSocket> Listen(const std::filesystem::path& path);
  ConsoleSocket(ConsoleSocket&& other) noexcept;
  ConsoleSocket& operator=(ConsoleSocket&&) = delete;
  ~ConsoleSocket();  // closes and removes the socket file

  const std::filesystem::path& path() const { return path_; }
  // The listening socket: readable once the runtime has connected.
  int listen_fd() const { return fd_.get(); }

  // The master the runtime sent, non-blocking and close-on-exec. Fails when the runtime has not
  // connected (create did not get that far) or sent no descriptor.
  Result<UniqueFd> ReceiveMaster();

 private:
  ConsoleSocket(std::filesystem::path path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  std::filesystem::path path_;
  UniqueFd fd_;
};

}  // namespace podlimits::cri
