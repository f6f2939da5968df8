// Reading back a process's rlimits and correcting the ones the runtime did not apply.
//
// After `create` and before `start`, the kubelet side of podlimits checks /proc/<pid>/limits of
// the container's init process against what the spec asked for. runc 1.1.5 is known to lose
// RLIMIT_NOFILE at times (Go's runtime raises it for itself and the child inherits that); such a
// limit is set with prlimit(2) and reported as a Warning event, never left silently different.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "cri/oci_spec.h"

namespace podlimits::cri {

// One row of /proc/<pid>/limits, keyed by RLIMIT_* name ("Max open files" -> RLIMIT_NOFILE).
// "unlimited" reads as RLIM_INFINITY (UINT64_MAX).
struct ProcessLimit {
  std::string type;  // "RLIMIT_NOFILE"
  std::uint64_t soft = 0;
  std::uint64_t hard = 0;
  std::string units;  // "files", "bytes", "" ...
  bool operator==(const ProcessLimit&) const = default;
};

// Parses the text of a /proc/<pid>/limits file (every row the kernel prints).
Result<std::vector<ProcessLimit>> ParseProcLimits(const std::string& text);

// Reads /proc/<pid>/limits (`proc_root` is /proc on a real machine).
Result<std::vector<ProcessLimit>> ReadProcessLimits(
    pid_t pid, const std::filesystem::path& proc_root = "/proc");

struct LimitCorrection {
  Rlimit wanted;
  std::uint64_t found_soft = 0;  // as read before the correction
  std::uint64_t found_hard = 0;
};

// What a failed prlimit(2) means, for the error: the kernel says only EPERM, whether the
// caller lacks CAP_SYS_RESOURCE (needed to raise a hard limit, in the initial user namespace) or
// RLIMIT_NOFILE's hard limit is above fs.nr_open (refused even with it).
struct PrlimitContext {
  bool cap_sys_resource = false;
  std::optional<std::int64_t> nr_open;
};

// `set RLIMIT_NOFILE of pid 42 to 256/512: the OCI runtime left it at 256/100, and raising a hard
// limit (100 to 512) needs CAP_SYS_RESOURCE, which podlimits lacks: Operation not permitted`.
std::string DescribePrlimitFailure(const Rlimit& wanted, const ProcessLimit& found, pid_t pid,
                                   int err, const PrlimitContext& context);

// The Seccomp field of /proc/<pid>/status: 0 disabled, 1 strict, 2 filter.
Result<int> ReadSeccompMode(pid_t pid);

// Compares `wanted` with the process's limits and sets each that differs with prlimit(2).
// Returns the corrections made (empty when the runtime applied everything). A prlimit that fails
// is an error naming the limit, the pid, the value the runtime left, the one wanted and why the
// kernel refused (DescribePrlimitFailure; the context is read from `proc_root` then): a limit
// that does not hold is never accepted.
Result<std::vector<LimitCorrection>> CorrectProcessLimits(
    pid_t pid, const std::vector<Rlimit>& wanted, const std::filesystem::path& proc_root = "/proc");

// CorrectProcessLimits, and every limit of the process as it holds them afterwards (the rows read,
// each corrected one at the value prlimit set): one read of /proc/<pid>/limits where the
// comparison and the pod's status had one each. Reads the file also when nothing is wanted.
struct CorrectedLimits {
  std::vector<LimitCorrection> corrections;
  std::vector<ProcessLimit> limits;
};
Result<CorrectedLimits> CorrectAndReadProcessLimits(
    pid_t pid, const std::vector<Rlimit>& wanted, const std::filesystem::path& proc_root = "/proc");

}  // namespace podlimits::cri
