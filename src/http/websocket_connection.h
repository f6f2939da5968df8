// An accepted WebSocket connection of the HTTPS server (https_server.h), for the handlers that
// stream over one (`kubectl exec`). Boost.Beast's WebSocket stream over the connection's TLS
// stream, and the connection's strand: the handler drives the socket with asynchronous
// operations (a read and a write may be outstanding at once, which blocking calls on one TLS
// stream cannot do) whose handlers run on that strand, one at a time, on the server's io
// threads. StrandSession (strand_session.h) runs a session there and waits for its end.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>

#include "http/connection_socket.h"

namespace podlimits::http {

using WebSocketStream =
    boost::beast::websocket::stream<boost::beast::ssl_stream<ConnectionSocket>&>;

struct WebSocketConnection {
  boost::asio::any_io_executor executor;  // the connection's strand
  WebSocketStream& ws;          // accepted, binary frames
  const std::atomic<bool>& stopping;  // the server is stopping: end soon
};

}  // namespace podlimits::http
