#include "nri/nri_config.h"

#include <fmt/format.h>

#include <cerrno>

#include "base/fs.h"
#include "codec/yaml_codec.h"
#include "field/field.h"

namespace podlimits::nri {
namespace fs = std::filesystem;
using codec::Node;

namespace {

constexpr std::string_view kKeys = "pluginName, pluginIndex, writableCgroups, defaultUlimits";

// NRI's own rule (api.CheckPluginIndex): exactly two digits.
bool ValidIndex(std::string_view idx) {
  return idx.size() == 2 && idx[0] >= '0' && idx[0] <= '9' && idx[1] >= '0' && idx[1] <= '9';
}

}  // namespace

Result<NriConfig> ParseNriConfig(std::string_view text, std::string_view source) {
  NriConfig config;
  auto docs = codec::ParseYamlStream(text);
  if (!docs) return Failure(fmt::format("{}: {}", source, codec::DescribeYamlError(docs.error())));
  if (docs->empty() || (docs->size() == 1 && (*docs)[0].node.IsNull())) return config;
  if (docs->size() != 1 || !(*docs)[0].node.IsObject()) {
    return Failure(fmt::format("{}: must be one YAML mapping ({})", source, kKeys));
  }
  for (const auto& m : (*docs)[0].node.members) {
    if (m.key == "pluginName") {
      if (!m.value.IsString() || m.value.scalar.empty()) {
        return Failure(fmt::format("{}: pluginName: must be a non-empty string", source));
      }
      config.plugin_name = m.value.scalar;
    } else if (m.key == "pluginIndex") {
      if (!ValidIndex(m.value.scalar)) {
        return Failure(fmt::format("{}: pluginIndex: must be two digits (\"00\" to \"99\"), not {}",
                                   source, field::GoQuote(m.value.scalar)));
      }
      config.plugin_index = m.value.scalar;
    } else if (m.key == "writableCgroups") {
      auto ok = runcwrap::ParseWritableCgroups(m.value, source, config.limits.max_descendants,
                                               config.limits.max_depth);
      if (!ok) return std::unexpected(ok.error());
    } else if (m.key == "defaultUlimits") {
      auto defaults = runcwrap::ParseDefaultUlimits(m.value, source);
      if (!defaults) return std::unexpected(defaults.error());
      config.limits.default_ulimits = std::move(*defaults);
    } else {
      return Failure(fmt::format("{}: unknown key {} ({})", source, field::GoQuote(m.key), kKeys));
    }
  }
  return config;
}

Result<NriConfig> LoadNriConfig(const fs::path& path) {
  const bool named = !path.empty();
  const fs::path file = named ? path : fs::path(kDefaultNriConfigPath);
  NriConfig config;
  auto text = ReadSmallFile(file, 1 << 20);
  if (text) {
    auto parsed = ParseNriConfig(*text, file.string());
    if (!parsed) return parsed;
    config = std::move(*parsed);
  } else if (named || text.error().errno_value != ENOENT) {
    return std::unexpected(std::move(text.error()).Wrap("read podlimits nri's configuration"));
  }
  config.limits.source = file;
  return config;
}

}  // namespace podlimits::nri
