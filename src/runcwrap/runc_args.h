// runc's command line, read just far enough to know what a call asks: the global options before
// the command, the command, for `create` and `run` the bundle, the pid file and the container
// id, and for `exec` its process file and the container id. podlimits-runc hands the same argv to the real runtime unchanged; nothing here rewrites it.
//
// runc (urfave/cli) and crun accept `--opt value`, `--opt=value` and Go's single-dash `-opt`;
// global options come before the command, a command's options before its first positional
// argument (the container id).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"

namespace podlimits::runcwrap {

struct RuncCall {
  // The global options as given (`--root`, `/run/containerd/runc/k8s.io`, `--log`, ...), to
  // repeat in the `state` and `delete` calls the wrapper makes itself.
  std::vector<std::string> global_args;
  std::optional<std::string> log_file;    // --log
  std::string log_format = "text";        // --log-format (text or json)
  std::string command;                    // "create", "run", "start", ...; "" with none
  // create / run only:
  std::filesystem::path bundle;           // --bundle / -b, else the working directory
  std::optional<std::filesystem::path> pid_file;  // --pid-file
  bool detach = false;                    // run --detach / -d
  std::string container_id;               // the first positional argument after the command
  // exec only: --process / -p, the process.json the shim wrote (exec_limits.h).
  std::optional<std::filesystem::path> process_file;

  // Whether the call creates a container.
  bool Creates() const { return command == "create" || command == "run"; }
  bool Execs() const { return command == "exec"; }
  // The calls the wrapper may change anything for; the front hands every other to the runtime.
  bool NeedsWrapper() const { return Creates() || Execs(); }
};

// Reads argv[1..] (argv[0] is the wrapper's own name). An error only for a create, run or exec
// whose options cannot be read (an option that needs a value at the end); anything else is the real
// runtime's to judge.
Result<RuncCall> ParseRuncCall(const std::vector<std::string>& args);

}  // namespace podlimits::runcwrap
