// What an upgrade request (a WebSocket one, or kubectl's SPDY fallback) asks for, for the
// streaming handlers (exec, attach, port-forward).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "http/https_server.h"

namespace podlimits::apiserver {

// The subprotocols a client offers (Sec-WebSocket-Protocol, comma-separated), in order.
std::vector<std::string> OfferedProtocols(const http::HttpRequest& request);

// Header `name` (lowercase) contains `token` (lowercase), whatever the case of its value:
// HeaderHasToken(request, "upgrade", "websocket").
bool HeaderHasToken(const http::HttpRequest& request, const char* name, std::string_view token);

}  // namespace podlimits::apiserver
