// The node's settings for `podlimits nri` (--config, default /etc/podlimits/nri.yaml). Every
// key is optional; the limit keys mean what they mean for podlimits-runc
// (runcwrap/wrapper_config.h), so a node moving from the wrapper to NRI keeps its file's
// writableCgroups and defaultUlimits:
//
//   pluginName: podlimits         # the name NRI registers and logs the plugin under
//   pluginIndex: "10"             # two digits: plugins are called in ascending index order
//   writableCgroups: {maxDescendants: 250, maxDepth: 50}
//   defaultUlimits:
//     - {name: nofile, soft: 1048576, hard: 1048576}
//
// A missing default file means all defaults; a file named on the command line must exist; an
// unknown key or a bad value is an error.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "base/error.h"
#include "runcwrap/wrapper_config.h"

namespace podlimits::nri {

inline constexpr std::string_view kDefaultNriConfigPath = "/etc/podlimits/nri.yaml";
inline constexpr std::string_view kDefaultSocketPath = "/var/run/nri/nri.sock";

struct NriConfig {
  std::string plugin_name = "podlimits";
  std::string plugin_index = "10";
  // The decision's settings (PlanCreate); `runtime` stays empty: NRI has no runtime to call.
  runcwrap::WrapperConfig limits;
};

Result<NriConfig> ParseNriConfig(std::string_view text, std::string_view source);

// `path` empty: the default file, which may be absent.
Result<NriConfig> LoadNriConfig(const std::filesystem::path& path);

}  // namespace podlimits::nri
