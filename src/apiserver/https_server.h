// The API's HTTPS listener: HTTP/1.1 with keep-alive over TLS (Boost.Beast and Asio on OpenSSL),
// every request authenticated before it reaches the handler:
//
//   - a client certificate that chains to the node's CA (the admin certificate of the
//     kubeconfig): the user is its CN, the groups its O;
//   - else `Authorization: Bearer <token>` matching the token file, when one is configured;
//   - else the apiserver's 401 Status (`Unauthorized`), which kubectl reports as "You must be
//     logged in to the server (Unauthorized)".
//
// Bodies beyond the apiserver's 3 MiB limit get its 413. One thread per connection (so that a
// streaming watch can later hold its connection without holding up others): requests on a
// connection are answered in order; beyond max_connections a new connection is closed at once,
// and a connection that stalls for a minute (reading or writing) is dropped.
// Stop() closes the listener and every connection and waits for their threads; Drain() first
// lets the requests in flight finish. Without authentication (a webhook) every request reaches
// the handler; the serving certificate may be reloaded when its files change.
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

namespace podlimits::apiserver {

inline constexpr std::size_t kMaxRequestBodyBytes = 3 * 1024 * 1024;

struct HttpRequest {
  std::string method;  // "GET", ...
  std::string target;  // "/api/v1/pods?watch=1"
  std::string path;    // "/api/v1/pods"
  std::map<std::string, std::string> query;    // decoded; the last of a repeated key
  std::map<std::string, std::string> headers;  // lowercase names
  std::string body;
  std::string user;                 // the authenticated user
  std::vector<std::string> groups;  // its groups
};

// The body of a response whose length is not known up front (a watch, `kubectl logs -f`): sent
// with chunked transfer encoding, one chunk per Write, flushed at once.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // False once the client is gone or the server stops: the writer should return.
  virtual bool Write(std::string_view chunk) = 0;
  // True once the client closed its side or the server stops; a writer that waits for
  // something to send checks it between waits.
  virtual bool Closed() = 0;
};

struct WebSocketConnection;  // websocket_connection.h

struct HttpResponse {
  HttpResponse() = default;
  HttpResponse(int status, std::string content_type, std::string body,
               std::vector<std::pair<std::string, std::string>> headers = {})
      : status(status),
        content_type(std::move(content_type)),
        body(std::move(body)),
        headers(std::move(headers)) {}

  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Set: the body is streamed by this function (`body` is ignored) and the connection closes
  // when it returns.
  std::function<void(ResponseStream&)> stream;
  // Set: the request is a WebSocket handshake, accepted with the subprotocol
  // `websocket_protocol` (status, body and headers are ignored); the function then has the
  // connection (websocket_connection.h) until it returns, and the connection closes. A request
  // that is no WebSocket handshake gets a 400 instead.
  std::function<void(WebSocketConnection&)> websocket;
  std::string websocket_protocol;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpsServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 6443;  // 0: any free port (port() says which)
  std::filesystem::path cert_file, key_file;  // the serving certificate
  // false: every request reaches the handler unauthenticated (an admission webhook, which the
  // apiserver calls without credentials); client_ca_file and bearer_token are then unused.
  bool authenticate = true;
  std::filesystem::path client_ca_file;       // client certificates must chain to it
  std::string bearer_token;                   // "" : no token accepted
  // The serving certificate and key are read again, for the connections that follow, when
  // either file changes (a rotated certificate, a renewed Secret); a pair that does not load
  // leaves the one in use in place until the files change again.
  bool reload_certificate = false;
  // Connections served at once (a thread each); one more is closed as soon as it is accepted.
  int max_connections = 1024;
};

class HttpsServer {
 public:
  ~HttpsServer();
  // Binds and starts accepting in the background. The error names the address or file.
  static Result<std::unique_ptr<HttpsServer>> Start(const HttpsServerOptions& options,
                                                    HttpHandler handler);
  std::uint16_t port() const { return port_; }
  void Stop();
  // Stops accepting, lets every request being answered finish (an idle keep-alive connection
  // is closed at once, a busy one after its response) for up to `grace`, then Stop().
  void Drain(std::chrono::milliseconds grace);

  struct Impl;

 private:
  explicit HttpsServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::uint16_t port_ = 0;
};

}  // namespace podlimits::apiserver
