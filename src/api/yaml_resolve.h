// YAML 1.1 plain-scalar resolution as go-yaml v2 does it (shared by reader and writer).
#pragma once

#include <string>
#include <string_view>

#include "api/node.h"

namespace podlimits::api {

// Resolves a plain scalar's text to the node it stands for.
Node ResolvePlainScalar(std::string_view text);

}  // namespace podlimits::api
