// How results reach the user: admitted objects on stdout, one line per rejection on stderr
// (`Error from server (REASON): MESSAGE`, or kubectl's `error: MESSAGE` for client-side
// failures), warnings as `Warning: TEXT`.
#pragma once

#include <string>
#include <vector>

#include "admission/chain.h"

namespace podlimits::cli {

// kNone: warnings and rejections only (`run`, which goes on with the admitted objects).
enum class OutputFormat { kYaml, kJson, kName, kNone };

// Prints everything and returns the exit code: 0 when every object was admitted, 1 otherwise.
int Report(const std::vector<admission::Outcome>& outcomes, OutputFormat format);

}  // namespace podlimits::cli
