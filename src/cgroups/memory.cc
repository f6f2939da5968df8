#include "cgroups/memory.h"

#include <charconv>
#include <string>

namespace podlimits::cgroups {

Result<std::int64_t> ParseOomKills(std::string_view text, const std::filesystem::path& file) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    constexpr std::string_view kKey = "oom_kill ";
    if (!line.starts_with(kKey)) continue;
    line.remove_prefix(kKey.size());
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), value);
    if (ec != std::errc() || end != line.data() + line.size()) {
      return Failure("parse", file, "oom_kill is not a number: \"" + std::string(line) + "\"");
    }
    return value;
  }
  return 0;
}

Result<std::int64_t> ReadOomKills(const CgroupTree& tree, const std::filesystem::path& cgroup) {
  auto text = tree.Read(cgroup, "memory.events");
  if (!text) return std::unexpected(text.error());
  auto dir = tree.Path(cgroup);
  return ParseOomKills(*text, dir ? *dir / "memory.events" : std::filesystem::path("memory.events"));
}

}  // namespace podlimits::cgroups
