// The exit codes of every podlimits command: part of the command-line contract (DESIGN.md),
// which scripts and tests outside the project depend on.
#pragma once

namespace podlimits::cli {

inline constexpr int kExitOk = 0;
// Something was rejected or invalid: an object admission refused, a pod the node refused or
// that Failed, an image the store refused.
inline constexpr int kExitRejected = 1;
// The command line, or a file it names (node config, admission config, token), is unusable.
inline constexpr int kExitUsage = 2;
// The node or its runtime failed.
inline constexpr int kExitNodeFailure = 3;

}  // namespace podlimits::cli
