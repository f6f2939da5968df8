// The API's HTTPS listener: HTTP/1.1 with keep-alive over TLS (Boost.Beast and Asio on OpenSSL),
// every request authenticated before it reaches the handler:
//
//   - a client certificate that chains to the node's CA (the admin certificate of the
//     kubeconfig): the user is its CN, the groups its O;
//   - else `Authorization: Bearer <token>` matching the token file, when one is configured;
//   - else a 401 (with the API's `refusal`, the apiserver's Status `Unauthorized`, which kubectl
//     reports as "You must be logged in to the server (Unauthorized)").
//
// What a client can hold, and for how long (kube-apiserver's http.Server is the model:
// ReadHeaderTimeout 32 s, IdleTimeout 90 s; https_listener.h says which thread does what):
//
//   - a connection costs a socket and no thread until a whole request has arrived: the TLS
//     handshake, the request header and the body are read asynchronously, each with a deadline
//     (the handshake and the header: read_header_timeout; the wait for the next request on
//     keep-alive: idle_timeout; the body: body_timeout; writing a response: write_timeout);
//   - connections are capped per source address and in all (connection_table.h): a new
//     connection over a cap takes the slot of the oldest connection that is only waiting, so
//     idle connections cannot lock anyone out; it is refused only when all are busy;
//   - a request header over max_header_bytes gets Go's `431 Request Header Fields Too Large`, a
//     malformed request Go's `400 Bad Request`, a body beyond the apiserver's 3 MiB a 413 (`refusal`);
//     each closes the connection.
//
// Stop() closes the listener and every connection and waits for them; Drain() first lets every
// request the server has received be answered. Without authentication (a webhook) every
// request reaches the handler; the serving certificate may be reloaded when its files change.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "http/connection_table.h"
#include "http/message.h"

namespace podlimits::http {

struct HttpsServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 6443;                  // 0: any free port (port() says which)
  std::filesystem::path cert_file, key_file;  // the serving certificate
  // false: every request reaches the handler unauthenticated (an admission webhook, which the
  // apiserver calls without credentials); client_ca_file and bearer_token are then unused.
  bool authenticate = true;
  std::filesystem::path client_ca_file;  // client certificates must chain to it
  std::string bearer_token;              // "" : no token accepted
  // The serving certificate and key are read again, for the connections that follow, when
  // either file changes (a rotated certificate, a renewed Secret); a pair that does not load
  // leaves the one in use in place until the files change again.
  bool reload_certificate = false;
  // Connections held at once, in all and from one source address (connection_table.h). The
  // global cap is lowered to what the process's open-file limit leaves room for.
  ConnectionCaps caps;
  std::chrono::milliseconds read_header_timeout{32'000};
  std::chrono::milliseconds idle_timeout{90'000};
  std::chrono::milliseconds body_timeout{60'000};
  std::chrono::milliseconds write_timeout{60'000};
  std::size_t max_header_bytes = 64 * 1024;
  // Request bodies being read and handled at once, in all (each at its announced length; a
  // chunked one at the 3 MiB it may reach): a request beyond gets kube-apiserver's 429 "Too
  // many requests, please try again later." with Retry-After: 1. Without it, connections each
  // sending a 3 MiB body slowly hold 3 MiB apiece.
  std::uint64_t max_buffered_body_bytes = 64ull << 20;
  // The body of a refusal the server makes itself (401 without credentials, 413 beyond the body
  // limit, 400 for an upgrade that is none, 500 for a handler that broke its word), from its
  // status and message. Unset: Go's http.Error, plain text. The API sets kube-apiserver's Status
  // objects (listwatch/api_errors.h).
  std::function<HttpResponse(int status, std::string_view message)> refusal;
  // Threads driving the sockets; 0: one per core, at most four.
  int io_threads = 0;
  // false: the handler never blocks and never streams (a webhook's, CPU only), so it runs on the
  // connection's io thread, without the two thread hand-offs a worker costs.
  bool handler_blocks = true;
};

class HttpsServer {
 public:
  ~HttpsServer();
  // Binds and starts accepting in the background. The error names the address or file.
  static Result<std::unique_ptr<HttpsServer>> Start(const HttpsServerOptions& options,
                                                    HttpHandler handler);
  std::uint16_t port() const { return port_; }
  void Stop();
  // Stops accepting and answers, with `Connection: close`, every request the server has
  // received and every request that arrives within a second on a connection that was waiting
  // (one already on the wire is not lost); connections with nothing received then close. Waits
  // for up to `grace`, then Stop().
  void Drain(std::chrono::milliseconds grace);

  struct Stats {
    std::size_t open = 0;     // connections held
    std::size_t waiting = 0;  // of them, waiting for a request
    std::size_t worker_threads = 0;
    std::uint64_t displaced_total = 0;  // waiting connections closed to make room
    std::uint64_t refused_total = 0;    // connections refused: every slot busy
    std::uint64_t timed_out_total = 0;  // connections closed at a deadline
    std::uint64_t too_many_total = 0;   // requests answered 429: bodies over their budget
    std::uint64_t header_too_large_total = 0;  // requests answered 431: header over its limit
    std::uint64_t malformed_total = 0;         // requests answered 400: not HTTP/1.1
    std::uint64_t too_large_total = 0;         // requests answered 413: body over 3 MiB
    std::uint64_t buffered_body_bytes = 0;     // request bodies held now, at announced lengths
  };
  Stats stats() const;

  struct Impl;

 private:
  explicit HttpsServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::uint16_t port_ = 0;
};

}  // namespace podlimits::http
