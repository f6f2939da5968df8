// How the library tells the operator what a start did (a certificate issued again, a store
// reinitialized, a setting not acted on): one line each, which the CLI prints as
// `podlimits serve: LINE` on stderr.
#pragma once

#include <functional>
#include <string>

namespace podlimits::serve {

using Notice = std::function<void(const std::string& line)>;

}  // namespace podlimits::serve
