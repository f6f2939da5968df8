// GET/POST /api/v1/namespaces/{ns}/pods/{name}/attach: `kubectl attach`, over the same WebSocket
// remotecommand protocol as exec (pod_exec_handler.h). Query: container, stdin, stdout, stderr,
// tty.
//
// What the client gets is the container's output from the moment it attached, as the container
// writes it: its CRI log followed (pod_log_follow.h), stdout on channel 1 and stderr on 2 (a
// terminal's output is all stdout), until the container's run ends (then a Success Status) or
// the client goes.
//
// Input (`-i`, and `kubectl run -i`) goes to a container that declares `stdin: true`: through
// its monitor into the container's stdin pipe, or with `tty` to its terminal, which the client
// may resize (PodExecutor::AttachInput). With `stdinOnce` the end of the first session's input
// closes the container's stdin. A container without `stdin: true` has /dev/null as its stdin:
// a request for input is refused before the upgrade, saying so, rather than accepted and
// ignored (containerd ignores it).
#pragma once

#include "http/https_server.h"
#include "storage/object_store.h"
#include "podstreams/pod_exec_handler.h"
#include "podstreams/pod_log_handler.h"

namespace podlimits::apiserver {

http::HttpResponse ServePodAttach(storage::ObjectStore& store, const PodLogSource& logs, PodExecutor& executor,
                            const http::HttpRequest& request, const storage::ObjectKey& pod_key);

}  // namespace podlimits::apiserver
