// The pids controller's files (Documentation/admin-guide/cgroup-v2.rst "PID", cgroup-v1/pids.rst;
// runtime.md §5.3), the same on v1 and v2 except where noted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "cgroups/error.h"
#include "cgroups/tree.h"

namespace podlimits::cgroups {

// A limit file that holds "max" or a non-negative decimal: pids.max, cgroup.max.descendants,
// cgroup.max.depth. nullopt stands for "max".
using MaxValue = std::optional<std::int64_t>;

// "max" -> nullopt, "42" -> 42; surrounding whitespace is ignored. Anything else is an error
// naming `file`.
Result<MaxValue> ParseMaxValue(std::string_view text, const std::filesystem::path& file);
// nullopt -> "max", 42 -> "42".
std::string FormatMaxValue(MaxValue value);

// A file that holds one non-negative decimal (pids.current, pids.peak).
Result<std::int64_t> ParseCounter(std::string_view text, const std::filesystem::path& file);

// pids.events. Both versions print "max N":
//  - v1, and v2 before Linux 6.12 (or with the pids_localevents mount option): the number of
//    forks refused to tasks of this cgroup, whichever cgroup's limit refused them;
//  - v2 since 6.12: the number of times this cgroup's own limit, or a descendant's, was hit.
// Other keys are ignored; some kernels' legacy (v1) file prints "maxN" without the space, which
// is accepted too.
struct PidsEvents {
  std::int64_t max = 0;
};
Result<PidsEvents> ParsePidsEvents(std::string_view text, const std::filesystem::path& file);

Result<std::int64_t> ReadPidsCurrent(const CgroupTree& tree, const std::filesystem::path& cgroup);
Result<MaxValue> ReadPidsMax(const CgroupTree& tree, const std::filesystem::path& cgroup);
Result<PidsEvents> ReadPidsEvents(const CgroupTree& tree, const std::filesystem::path& cgroup);

}  // namespace podlimits::cgroups
