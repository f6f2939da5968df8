// The process an exec runs in a running container: the container's own process from its
// config.json with the exec's command line and terminal, handed to `runtime exec --process FILE`.
//
// containerd's CRI builds an exec's process spec the same way (the container's spec.Process with
// Args and Terminal replaced, TERM=xterm added for a terminal), so an exec'd process gets the
// container's user, environment, working directory, capabilities, no_new_privs, AppArmor and
// SELinux labels and rlimits. The plain `crun exec ID ARGV...` does not: crun 1.8 sets rlimits
// only from a process file (measured: an exec'd shell had the caller's `ulimit -n`), and leaves
// no_new_privs off. kubernetes#3595's old objection to per-container rlimits ("processes started
// with exec don't inherit them") is answered here: every exec podlimits runs, probes and hooks
// included, goes through this.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "base/error.h"

namespace podlimits::cri {

// The "process" object of a bundle's config.json, as JSON text. Errors name `source`.
Result<std::string> ContainerProcessJson(std::string_view config_json, std::string_view source);

// The process file's text: `container_process` (from ContainerProcessJson) with "args" set to
// `argv` and "terminal" to `tty`; with a terminal, TERM=xterm replaces any TERM of the
// container's environment, and "consoleSize" is dropped (the client sends its size).
Result<std::string> ExecProcessJson(std::string_view container_process,
                                    std::span<const std::string> argv, bool tty);

}  // namespace podlimits::cri
