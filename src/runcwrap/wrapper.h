// podlimits-runc: a runc-compatible command that containerd's runc shim runs as its BinaryName
// and CRI-O as a runtime_path. Every call goes to the real runtime (wrapper_config.h) with the
// same arguments; `create` and `run` first apply what the pod's annotations ask
// (bundle_request.h, create_plan.h): the bundle's config.json is rewritten atomically, the pod
// cgroup's limits are written, and after the runtime's create the container's init process is
// read back (/proc/<pid>/limits, the pod cgroup's pids.max). A limit that does not hold is
// corrected or the container is deleted and the create fails: a container never runs with less
// than it asked for. A foreground `run` (no --detach) is handed over after the rewrite, as there
// is nothing to come back to.
#pragma once

namespace podlimits::runcwrap {

// The command; argv as runc would get it. Returns the exit status, or does not return when it
// hands the call over with execv.
int RuncWrapperMain(int argc, char** argv);

}  // namespace podlimits::runcwrap
