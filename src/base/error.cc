#include "base/error.h"

#include <ostream>
#include <system_error>

namespace podlimits {

std::string Error::Message() const {
  std::string out;
  for (auto it = context.rbegin(); it != context.rend(); ++it) {
    out += *it;
    out += ": ";
  }
  if (!op.empty()) {
    out += op;
    if (!path.empty()) out += " \"" + path.string() + "\"";
    out += ": ";
  } else if (!path.empty()) {
    out += "\"" + path.string() + "\": ";
  }
  if (errno_value != 0) {
    out += std::generic_category().message(errno_value);
    if (!detail.empty()) out += ": " + detail;
  } else {
    out += detail;
  }
  return out;
}

std::ostream& operator<<(std::ostream& out, const Error& error) {
  return out << error.Message();
}

std::unexpected<Error> SystemError(std::string op, std::filesystem::path path, int errno_value,
                                   std::string detail) {
  return std::unexpected(Error{std::move(op), std::move(path), errno_value, std::move(detail), {}});
}

std::unexpected<Error> Failure(std::string op, std::filesystem::path path, std::string detail) {
  return std::unexpected(Error{std::move(op), std::move(path), 0, std::move(detail), {}});
}

std::unexpected<Error> Failure(std::string message) {
  return std::unexpected(Error{{}, {}, 0, std::move(message), {}});
}

std::unexpected<Error> Refusal(std::string_view reason, std::string message) {
  return std::unexpected(Error{.detail = std::move(message), .reason = std::string(reason)});
}

}  // namespace podlimits
