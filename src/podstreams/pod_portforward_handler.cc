#include "podstreams/pod_portforward_handler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "listwatch/api_errors.h"
#include "podstreams/pod_container.h"
#include "podstreams/upgrade_request.h"
#include "streaming/portforward_session.h"

namespace podlimits::apiserver {

using codec::Node;

namespace {

// The subprotocol kubectl's tunnelling dialer offers: SPDY inside the WebSocket.
constexpr std::string_view kTunnelledSpdy = "SPDY/3.1+portforward.k8s.io";

}  // namespace

http::HttpResponse ServePodPortForward(storage::ObjectStore& store, PodPortDialer& dialer,
                                 const http::HttpRequest& request, const storage::ObjectKey& pod_key) {
  auto loaded = LoadPod(store, pod_key);
  if (!loaded) return loaded.error().Response();
  auto pod = std::make_shared<Node>(std::move(*loaded));
  if (codec::StringOf(pod->FindPath({"spec", "nodeName"})).empty()) {
    return BadRequest(fmt::format("pod {} does not have a host assigned", pod_key.name)).Response();
  }
  // kubectl 1.32 falls back to SPDY when the WebSocket upgrade fails and prints what that
  // request got: refusals are Statuses it can show.
  const std::string phase = codec::StringOf(pod->FindPath({"status", "phase"}));
  if (phase == "Succeeded" || phase == "Failed") {
    // The kubelet's answer for a pod with no sandbox left (kuberuntime GetPortForward).
    return BadRequest(fmt::format("failed to find sandboxID for pod {}", pod_key.name)).Response();
  }
  if (!HeaderHasToken(request, "upgrade", "websocket")) {
    if (HeaderHasToken(request, "upgrade", "spdy")) {
      return BadRequest(fmt::format("podlimits serves port-forward over WebSocket only ({}), not "
                                    "SPDY/3.1 directly: run kubectl without "
                                    "KUBECTL_PORT_FORWARD_WEBSOCKETS=false",
                                    kTunnelledSpdy))
          .Response();
    }
    return BadRequest("Upgrade request required").Response();
  }
  const auto offered = OfferedProtocols(request);
  if (std::find(offered.begin(), offered.end(), kTunnelledSpdy) == offered.end()) {
    return {400, "text/plain; charset=utf-8",
            fmt::format("requested protocol(s) are not supported: [{}]; supports [{}]",
                        fmt::join(offered, " "), kTunnelledSpdy)};
  }
  http::HttpResponse response;
  response.websocket_protocol = std::string(kTunnelledSpdy);
  response.websocket = [&dialer, pod](http::WebSocketConnection& connection) {
    streaming::RunPortForwardSession(connection, [&dialer, pod](int port) { return dialer.DialPort(*pod, port); });
  };
  return response;
}

}  // namespace podlimits::apiserver
