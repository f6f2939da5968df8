// What the memory controller of cgroup v2 reports about a cgroup.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "base/error.h"
#include "cgroups/tree.h"

namespace podlimits::cgroups {

// memory.events' oom_kill: how many processes of the cgroup and its descendants the kernel's OOM
// killer killed (containerd's OOM watcher reads the same). A file without the key reads as 0.
Result<std::int64_t> ParseOomKills(std::string_view memory_events, const std::filesystem::path& file);
Result<std::int64_t> ReadOomKills(const CgroupTree& tree, const std::filesystem::path& cgroup);

}  // namespace podlimits::cgroups
