#include "cli/node_config_flag.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "field/field.h"

namespace podlimits::cli {

Result<LoadedNodeConfig> LoadNodeConfigOrDefault(const std::string& path) {
  if (path.empty()) return LoadedNodeConfig{kubelet::DefaultNodeConfig(), std::nullopt};
  // Read here rather than by kubelet::LoadNodeConfig, in its words, so that the text parsed is
  // the text kept.
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Failure(fmt::format("unable to read node config {}: {}", field::GoQuote(path),
                               std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto config = kubelet::ParseNodeConfig(text.str(), path);
  if (!config) return std::unexpected(config.error());
  return LoadedNodeConfig{std::move(*config), text.str()};
}

}  // namespace podlimits::cli
