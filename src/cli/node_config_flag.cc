#include "cli/node_config_flag.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "base/fs.h"
#include "field/field.h"

namespace podlimits::cli {

Result<LoadedNodeConfig> LoadNodeConfigOrDefault(const std::string& path) {
  if (path.empty()) return LoadedNodeConfig{kubelet::DefaultNodeConfig(), std::nullopt};
  // Read here rather than by kubelet::LoadNodeConfig, in its words, so that the text parsed is
  // the text kept.
  auto text = ReadWholeFile(path);
  if (!text) {
    return Failure(fmt::format("unable to read node config {}: {}", field::GoQuote(path),
                               std::strerror(text.error().errno_value)));
  }
  auto config = kubelet::ParseNodeConfig(*text, path);
  if (!config) return std::unexpected(config.error());
  return LoadedNodeConfig{std::move(*config), std::move(*text)};
}

}  // namespace podlimits::cli
