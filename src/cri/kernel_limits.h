// What the kernel lets a process do with its rlimits: whether it holds CAP_SYS_RESOURCE (without
// it no hard limit can be raised) and fs.nr_open (the most RLIMIT_NOFILE can be). The node reads
// them to grant ulimits, and the rlimit read-back reads them to explain a correction that failed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace podlimits::cri {

// Whether the CapEff mask in a /proc/<pid>/status text holds CAP_SYS_RESOURCE.
bool HasCapSysResource(std::string_view proc_status);

// fs.nr_open from <proc_root>/sys/fs/nr_open; nullopt when it cannot be read.
std::optional<std::int64_t> ReadNrOpen(const std::filesystem::path& proc_root = "/proc");

}  // namespace podlimits::cri
