// The streaming half of `kubectl port-forward` (pod_portforward_handler.h): SPDY/3.1 frames
// (spdy_frames.h) read from and written to the WebSocket's binary messages, on the connection's
// io_context, until the client goes.
//
// Each of kubectl's streams gets its SYN_REPLY (a stream with a bad header is refused, as
// spdystream's server refuses one its handler rejects). Once a request id has both its error
// and data stream, the port is dialled; the data stream's bytes go to the socket and the
// socket's come back as data frames, one read at a time, each after the last was sent. The
// client's FIN half-closes the socket; the pod closing its side ends both streams (FIN), which
// is how kubectl learns the connection is over; a dial that fails writes its message on the
// error stream and ends both. PINGs are answered. When the WebSocket closes, every socket does.
#pragma once

#include <functional>
#include <string>

#include "http/websocket_connection.h"
#include "base/error.h"
#include "base/unique_fd.h"

namespace podlimits::streaming {

// Dials one port of the pod: the connected socket, or the error whose message goes on the error
// stream.
using PortDial = std::function<Result<UniqueFd>(int port)>;

void RunPortForwardSession(http::WebSocketConnection& connection, PortDial dial);

}  // namespace podlimits::streaming
