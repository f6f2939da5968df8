// GET/POST /api/v1/namespaces/{ns}/pods/{name}/attach: `kubectl attach`, over the same WebSocket
// remotecommand protocol as exec (pod_exec_handler.h). Query: container, stdin, stdout, stderr,
// tty.
//
// What the client gets is the container's output from the moment it attached, as the container
// writes it: its CRI log followed (pod_log_follow.h), stdout on channel 1 and stderr on 2 (a
// terminal's output is all stdout), until the container's run ends (then a Success Status) or
// the client goes. Input is not attached: a container's stdin on this node is /dev/null (its
// terminal with tty, which the pod's monitor reads), so a request for stdin is refused before the
// upgrade, saying so, rather than accepted and ignored.
#pragma once

#include "apiserver/https_server.h"
#include "apiserver/object_store.h"
#include "apiserver/pod_log_handler.h"

namespace podlimits::apiserver {

HttpResponse ServePodAttach(ObjectStore& store, const PodLogSource& logs,
                            const HttpRequest& request, const ObjectKey& pod_key);

}  // namespace podlimits::apiserver
