// Errors of the cgroups module: which operation failed on which path, and why, in crun's style:
//   write "/sys/fs/cgroup/pids/kubepods/pod123/pids.max": Invalid argument
//   mkdir "/sys/fs/cgroup/unified/kubepods": Permission denied
#pragma once

#include <expected>
#include <filesystem>
#include <string>

namespace podlimits::cgroups {

struct Error {
  std::string op;              // "mkdir", "write", "read", "rmdir", "kill", "parse", ...
  std::filesystem::path path;  // the file or directory the operation was about
  int errno_value = 0;         // 0 when the failure is not a failed system call
  std::string detail;          // extra text, or the whole reason when errno_value is 0

  // `OP "PATH": strerror(errno)[: detail]`, or `OP "PATH": detail`.
  std::string Message() const;
};

template <typename T>
using Result = std::expected<T, Error>;

// An Error from the current errno (captured by the caller).
std::unexpected<Error> SystemError(std::string op, std::filesystem::path path, int errno_value,
                                   std::string detail = {});
// An Error that is not a failed system call.
std::unexpected<Error> Failure(std::string op, std::filesystem::path path, std::string detail);

}  // namespace podlimits::cgroups
