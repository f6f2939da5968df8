// The streaming half of `kubectl exec` (pod_exec_handler.h): the process's streams and the
// WebSocket, framed by channel, on the connection's io_context until the command ends and its
// Status is sent, or the client goes (then the node is told, and kills the command).
#pragma once

#include <string>
#include <vector>

#include "apiserver/pod_exec_handler.h"
#include "http/websocket_connection.h"

namespace podlimits::apiserver {

// Runs on the connection's thread until the session is over. `v5`: the client may close its
// stdin with the CLOSE signal (v5.channel.k8s.io).
void RunExecSession(http::WebSocketConnection& connection, ExecStreams streams,
                    std::vector<std::string> command, bool v5);

}  // namespace podlimits::apiserver
