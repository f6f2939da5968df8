// The record podlimits-runc's front reads (front/runc_front.h): which runtime the full wrapper
// resolved from which configuration file, written after the file was loaded and checked.
#pragma once

#include <filesystem>

namespace podlimits::runcwrap {

// Writes (or leaves, when it already says the same) the record for `config_file`, the runc.yaml
// this call loaded, naming `runtime`. Nothing when the file does not exist (all defaults): the
// front then hands every call to the full wrapper. A failure to write is not an error of the
// call: without a record the front is only slower, never wrong.
void RecordRuntimeForFront(const std::filesystem::path& config_file,
                           const std::filesystem::path& runtime);

}  // namespace podlimits::runcwrap
