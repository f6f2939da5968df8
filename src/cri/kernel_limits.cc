#include "cri/kernel_limits.h"

#include <linux/capability.h>

#include <charconv>
#include <string>

#include "base/fs.h"

namespace podlimits::cri {

bool HasCapSysResource(std::string_view status) {
  constexpr std::string_view kKey = "CapEff:";
  std::size_t at = status.find(kKey);
  if (at == std::string_view::npos) return false;
  std::string_view rest = status.substr(at + kKey.size());
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  std::uint64_t mask = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), mask, 16);
  if (ec != std::errc()) return false;
  return (mask >> CAP_SYS_RESOURCE) & 1;
}

std::optional<std::int64_t> ReadNrOpen(const std::filesystem::path& proc_root) {
  auto text = ReadSmallFile(proc_root / "sys/fs/nr_open", 64);
  if (!text) return std::nullopt;
  std::int64_t value = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  while (end > begin && (end[-1] == '\n' || end[-1] == ' ')) --end;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace podlimits::cri
