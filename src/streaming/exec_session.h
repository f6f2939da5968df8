// The streaming half of `kubectl exec` (pod_exec_handler.h): the process's streams and the
// WebSocket, framed by channel, on the connection's io_context until the command ends and its
// Status is sent, or the client goes (then the node is told, and kills the command).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "http/websocket_connection.h"
#include "streaming/exec_streams.h"

namespace podlimits::streaming {

// The JSON of the final Status the error channel carries, from the node's last message
// ({"exitCode": N} or {"error": "..."}): the API's to write, not the session's.
using ExecStatusWriter = std::function<std::string(std::string_view node_message)>;

// Runs on the connection's thread until the session is over. `v5`: the client may close its
// stdin with the CLOSE signal (v5.channel.k8s.io).
void RunExecSession(http::WebSocketConnection& connection, ExecStreams streams,
                    ExecStatusWriter final_status, bool v5);

}  // namespace podlimits::streaming
