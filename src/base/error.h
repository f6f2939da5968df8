// The project's one error type: which operation failed on which path, the errno and a detail,
// plus the context added on the way up, in crun's style (crun_make_error / crun_error_wrap):
//
//   write "/sys/fs/cgroup/pids/kubepods/pod123/pids.max": Invalid argument
//   create pod cgroup: mkdir "/sys/fs/cgroup/unified/kubepods": Permission denied
//   crun create 1a2b...: mount `proc` to `proc`: Operation not permitted
//
// Errors are values: functions return Result<T> (std::expected<T, Error>) across module
// boundaries; nothing throws for user input or a failed system call.
//
// What a caller branches on travels as `reason`, a machine-readable word that is never printed:
// apimachinery's StatusReason ("NotFound", "Conflict", "Expired") for the object store, the
// kubelet's event and status reasons ("InvalidNodeConfiguration", "ErrImageNeverPull",
// "CreateContainerConfigError") for the node. Those are the words upstream itself branches on
// and shows to users, so one string field serves every module without a second error type per
// module (the store's, the sandbox's, the container's, the claim's each had one) and without a
// shared enum that every module would have to extend. The modules that set reasons name them as
// constants beside the functions that return them. Anything more specific than a reason (a
// store's current revision, the holder of a claim) is not part of the error: the caller asks the
// module for it.
#pragma once

#include <expected>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"

namespace podlimits {

struct Error {
  std::string op = {};  // "mkdir", "write", "read", "crun create", "parse", ...; may be empty
  std::filesystem::path path = {};  // the file or directory the operation was about; may be empty
  int errno_value = 0;              // 0 when the failure is not a failed system call
  std::string detail = {};          // extra text, or the whole reason when errno_value is 0
  // What the callers were doing, innermost first (Wrap appends); printed outermost first.
  std::vector<std::string> context = {};
  // Why, for the caller's branches (see above); empty when no caller needs to tell this failure
  // from others. Not part of Message().
  std::string reason = {};

  // `CONTEXT...: OP "PATH": strerror(errno)[: detail]`; parts that are empty are left out
  // (`OP: detail`, or only the detail).
  std::string Message() const;

  bool operator==(const Error&) const = default;

  bool Is(std::string_view r) const { return reason == r; }

  // Sets the reason: `return std::unexpected(Error{...}.Because(kConflict))`.
  Error& Because(std::string_view r) & {
    reason = r;
    return *this;
  }
  Error&& Because(std::string_view r) && {
    reason = r;
    return std::move(*this);
  }

  // Adds what the caller was doing: `Wrap("create pod cgroup")` makes the message start with
  // `create pod cgroup: `.
  Error& Wrap(std::string what) & {
    context.push_back(std::move(what));
    return *this;
  }
  Error&& Wrap(std::string what) && {
    context.push_back(std::move(what));
    return std::move(*this);
  }
};

// Prints Message(): for logs and test failure output.
std::ostream& operator<<(std::ostream& out, const Error& error);

template <typename T = void>
using Result = std::expected<T, Error>;

// A failed system call: `op` on `path` set `errno_value` (captured by the caller right after it).
std::unexpected<Error> SystemError(std::string op, std::filesystem::path path, int errno_value,
                                   std::string detail = {});
// A failure about `path` that is not a failed system call.
std::unexpected<Error> Failure(std::string op, std::filesystem::path path, std::string detail);
// A failure that is only a sentence (validation of configuration, a protocol error, ...).
std::unexpected<Error> Failure(std::string message);
// A sentence with the reason a caller branches on: `Refusal(kConflict, "... is at revision 3")`.
std::unexpected<Error> Refusal(std::string_view reason, std::string message);

// Adds context to the error of `result`, if it holds one: `return Wrapped(Write(...), "apply")`.
template <typename T>
Result<T> Wrapped(Result<T> result, std::string what) {
  if (!result) result.error().Wrap(std::move(what));
  return result;
}

}  // namespace podlimits
