// One call of one CNI plugin (CNI spec 1.0, "Execution protocol"): the plugin binary found in
// the plugin directories, CNI_* variables in its environment, its network configuration on
// stdin, a result (ADD) or nothing (DEL) on stdout, and on failure the spec's error object
// ({"code", "msg", "details"}) whose message becomes the error's.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "codec/node.h"

namespace podlimits::cni {

struct PluginCall {
  std::string command;       // "ADD" or "DEL"
  std::string container_id;  // CNI_CONTAINERID
  std::string netns;         // CNI_NETNS: a path; "" on a DEL once the namespace is gone
  std::string ifname;        // CNI_IFNAME
  std::vector<std::pair<std::string, std::string>> args;  // CNI_ARGS, "K=V;K=V"
  std::vector<std::filesystem::path> bin_dirs;            // CNI_PATH, searched in order
  std::chrono::milliseconds timeout{60000};
};

// The plugin `type` in the first of `call.bin_dirs` that has it; an error naming the
// directories when none does (libcni: `failed to find plugin "x" in path [...]`).
Result<std::filesystem::path> FindPlugin(std::string_view type,
                                         const std::vector<std::filesystem::path>& bin_dirs);

// Runs plugin `type` with `config` (the JSON the plugin reads) on stdin. Returns the parsed
// result for ADD, and a null node for a DEL (whose stdout is empty).
Result<codec::Node> CallPlugin(const PluginCall& call, std::string_view type,
                             const std::string& config);

}  // namespace podlimits::cni
