// What crun and runc print, read back: their error messages and `state` JSON.
//
// Measured with crun 1.8.1 and runc 1.1.5 (both take --log-format json): with `--log FILE` a
// failed `create` writes one JSON line {"msg":..., "level":"error", "time":...} to FILE, and the
// same message to its stderr too (crun: the plain text; runc: only when its log is not stderr).
// Without --log, each writes its JSON lines to stderr. Older crun and runc in text mode write
// plain lines; those are taken as they are.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "base/error.h"
#include "cri/oci_runtime.h"

namespace podlimits::cri {

// The message that explains a failure: the last error-level entry ("error", "fatal", "panic",
// or a plain line), else the last entry of any level; "" when there is none.
std::string RuntimeMessage(std::string_view log_text);

// The output of `crun state ID` / `runc state ID`: a JSON object with at least "id",
// "status", "pid" and "bundle".
Result<ContainerState> ParseContainerState(std::string_view json);

}  // namespace podlimits::cri
