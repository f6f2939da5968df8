// The rlimits of a process exec'd into a container (`runc exec --process FILE ID`): the
// container's own, as podlimits-runc left them in the bundle's config.json.
//
// Why: containerd's CRI plugin (ExecSync, Exec: kubectl exec, exec probes) builds the exec'd
// process from the container spec it stored, which is the spec before podlimits-runc rewrote the
// bundle's copy at create. Without this step the process gets whatever that stored spec says,
// and containerd 2.x says nothing, so the runtime leaves the shim's own limits (measured through
// the CRI: nofile 20000:20000 in a container that runs with 1024:2048; tests/cri/run). CRI-O
// does the same with its stored spec.
#pragma once

#include "base/error.h"
#include "codec/node.h"

namespace podlimits::runcwrap {

// Copies every entry of `container_spec`'s process.rlimits onto `process` (a process.json),
// replacing the entry of the same type or appending it; the process's other rlimits stay.
// Returns whether `process` changed; an error when either's rlimits are not a list.
Result<bool> CopyContainerRlimits(const codec::Node& container_spec, codec::Node& process);

}  // namespace podlimits::runcwrap
