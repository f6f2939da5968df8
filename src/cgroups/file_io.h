// The few system calls every cgroup file access goes through, with errors naming the path.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cgroups/error.h"

namespace podlimits::cgroups {

// The whole file, read to its end (base/fs.h ReadWholeFile: cgroup files report a size of 0 or
// 4096).
Result<std::string> ReadFile(const std::filesystem::path& file);

// One write(2) of `value` to an existing file (never creates it: a control file the kernel does
// not offer is an error, ENOENT). The kernel parses a cgroup file write as one unit, so a short
// write is an error too.
Result<void> WriteFile(const std::filesystem::path& file, std::string_view value);

// `text` without leading and trailing whitespace.
std::string_view Trim(std::string_view text);

// The whitespace-separated words of `text`.
std::vector<std::string> Words(std::string_view text);

}  // namespace podlimits::cgroups
