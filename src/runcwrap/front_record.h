// The record podlimits-runc's front reads (front/runc_front.h): which runtime the full wrapper
// resolved from which configuration file's bytes, written after the file was loaded and checked.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace podlimits::runcwrap {

// Writes (or leaves, when it already says the same) the record for `config_file`, whose bytes
// as parsed are `text` and which names `runtime`. Without text (no file, or a file that does not
// name its runtime: the default depends on what is installed, which the front does not look at)
// it removes the record instead. A failure is not an error of the call: without a record the
// front is only slower, and a stale one never matches.
void RecordRuntimeForFront(const std::filesystem::path& config_file,
                           const std::optional<std::string>& text,
                           const std::filesystem::path& runtime);

}  // namespace podlimits::runcwrap
