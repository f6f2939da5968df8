#include "cgroups/error.h"

#include <system_error>
#include <utility>

namespace podlimits::cgroups {

std::string Error::Message() const {
  std::string out = op + " \"" + path.string() + "\": ";
  if (errno_value != 0) {
    out += std::generic_category().message(errno_value);
    if (!detail.empty()) out += ": " + detail;
  } else {
    out += detail;
  }
  return out;
}

std::unexpected<Error> SystemError(std::string op, std::filesystem::path path, int errno_value,
                                   std::string detail) {
  return std::unexpected(Error{std::move(op), std::move(path), errno_value, std::move(detail)});
}

std::unexpected<Error> Failure(std::string op, std::filesystem::path path, std::string detail) {
  return std::unexpected(Error{std::move(op), std::move(path), 0, std::move(detail)});
}

}  // namespace podlimits::cgroups
