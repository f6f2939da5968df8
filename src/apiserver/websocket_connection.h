// An accepted WebSocket connection of the HTTPS server (https_server.h), for the handlers that
// stream over one (`kubectl exec`). Boost.Beast's WebSocket stream over the connection's TLS
// stream, and the connection's own io_context: the handler drives the socket with asynchronous
// operations on that context (a read and a write may be outstanding at once, which blocking
// calls on one TLS stream cannot do), running it on the connection's thread.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>

namespace podlimits::apiserver {

using WebSocketStream = boost::beast::websocket::stream<
    boost::beast::ssl_stream<boost::asio::ip::tcp::socket>&>;

struct WebSocketConnection {
  boost::asio::io_context& io;  // the connection's: run it on the handler's thread
  WebSocketStream& ws;          // accepted, binary frames
  const std::atomic<bool>& stopping;  // the server is stopping: end soon
};

}  // namespace podlimits::apiserver
