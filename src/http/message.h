// What the HTTPS server (https_server.h) hands a handler and takes back: a request, read whole
// and authenticated, and a response, whole, streamed or a WebSocket. No Kubernetes types.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace podlimits::http {

inline constexpr std::size_t kMaxRequestBodyBytes = 3 * 1024 * 1024;

struct HttpRequest {
  std::string method;                          // "GET", ...
  std::string target;                          // "/api/v1/pods?watch=1"
  std::string path;                            // "/api/v1/pods"
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

}  // namespace podlimits::http
