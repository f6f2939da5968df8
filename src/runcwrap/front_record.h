// The record podlimits-runc's front reads (front/runc_front.h): which runtime the full wrapper
// resolved from which configuration file's bytes, written after the file was loaded and checked.
#pragma once

#include "runcwrap/wrapper_config.h"

namespace podlimits::runcwrap {

// Writes (or leaves, when it already says the same) the record for `config.source`: the size
// and hash of its bytes as parsed, and the runtime they name. Without those bytes (no file, or a
// file that does not name its runtime: the default depends on what is installed, which the front
// does not look at) it removes the record instead. A failure is not an error of the call:
// without a record the front is only slower, and a stale one never matches.
void RecordRuntimeForFront(const WrapperConfig& config);

}  // namespace podlimits::runcwrap
