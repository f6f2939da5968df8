// GET/POST /api/v1/namespaces/{ns}/pods/{name}/portforward: `kubectl port-forward`.
//
// kubectl 1.32 speaks SPDY/3.1 tunnelled through a WebSocket (subprotocol
// "SPDY/3.1+portforward.k8s.io"; KUBECTL_PORT_FORWARD_WEBSOCKETS, on by default since 1.31),
// falling back to a plain SPDY upgrade when the WebSocket one fails. Inside, the
// portforward.k8s.io protocol: for each local connection kubectl opens two streams with the
// headers streamtype (error, then data), port and requestid; the data stream carries the bytes
// both ways, and the error stream the node's message when the port cannot be reached (kubectl
// then prints it and ends). The checks before the upgrade are the apiserver's (the pod, a host
// assigned) and the kubelet's (a pod that has ended has no sandbox to forward to); the
// connection to the port is made on the node, in the pod's network namespace (PodPortDialer).
// The plain SPDY upgrade is refused with a Status that says so.
#pragma once

#include <string>

#include "base/error.h"
#include "base/unique_fd.h"
#include "codec/node.h"
#include "http/https_server.h"
#include "storage/object_store.h"

namespace podlimits::apiserver {

class PodPortDialer {
 public:
  virtual ~PodPortDialer() = default;
  // A socket connected to `port` on the pod's loopback, or the error whose message kubectl
  // prints (the kubelet's `error forwarding port 80 to pod ...`).
  virtual Result<UniqueFd> DialPort(const codec::Node& pod, int port) = 0;
};

http::HttpResponse ServePodPortForward(storage::ObjectStore& store, PodPortDialer& dialer,
                                 const http::HttpRequest& request, const storage::ObjectKey& pod_key);

}  // namespace podlimits::apiserver
