#include "cgroups/pids.h"

#include <charconv>
#include <string>

#include "cgroups/file_io.h"

namespace podlimits::cgroups {
namespace {

bool ParseNonNegative(std::string_view text, std::int64_t& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

std::string Quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

template <typename T>
Result<T> ReadAndParse(const CgroupTree& tree, const std::filesystem::path& cgroup,
                       std::string_view file,
                       Result<T> (*parse)(std::string_view, const std::filesystem::path&)) {
  auto text = tree.Read(cgroup, file);
  if (!text) return std::unexpected(text.error());
  auto dir = tree.Path(cgroup);
  return parse(*text, dir ? *dir / file : std::filesystem::path(file));
}

}  // namespace

Result<MaxValue> ParseMaxValue(std::string_view text, const std::filesystem::path& file) {
  std::string_view value = Trim(text);
  if (value == "max") return MaxValue();
  std::int64_t n = 0;
  if (!ParseNonNegative(value, n)) {
    return Failure("parse", file, "expected \"max\" or a number, got " + Quoted(value));
  }
  return MaxValue(n);
}

std::string FormatMaxValue(MaxValue value) {
  return value ? std::to_string(*value) : std::string("max");
}

Result<std::int64_t> ParseCounter(std::string_view text, const std::filesystem::path& file) {
  std::string_view value = Trim(text);
  std::int64_t n = 0;
  if (!ParseNonNegative(value, n)) {
    return Failure("parse", file, "expected a number, got " + Quoted(value));
  }
  return n;
}

Result<PidsEvents> ParsePidsEvents(std::string_view text, const std::filesystem::path& file) {
  std::optional<std::int64_t> max;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = Trim(text.substr(start, end - start));
    start = end + 1;
    if (line.empty()) continue;
    std::string_view key = line.substr(0, line.find_first_of(" \t"));
    std::string_view value = Trim(line.substr(key.size()));
    if (key.starts_with("max") && key.size() > 3 && value.empty()) {  // legacy "maxN"
      value = key.substr(3);
      key = "max";
    }
    if (key != "max") continue;
    std::int64_t n = 0;
    if (max || !ParseNonNegative(value, n)) {
      return Failure("parse", file,
                     max ? "\"max\" appears twice" : "bad \"max\" line " + Quoted(line));
    }
    max = n;
  }
  if (!max) return Failure("parse", file, "no \"max\" counter in " + Quoted(Trim(text)));
  return PidsEvents{*max};
}

Result<std::int64_t> ReadPidsCurrent(const CgroupTree& tree, const std::filesystem::path& cgroup) {
  return ReadAndParse<std::int64_t>(tree, cgroup, "pids.current", &ParseCounter);
}

Result<MaxValue> ReadPidsMax(const CgroupTree& tree, const std::filesystem::path& cgroup) {
  return ReadAndParse<MaxValue>(tree, cgroup, "pids.max", &ParseMaxValue);
}

Result<PidsEvents> ReadPidsEvents(const CgroupTree& tree, const std::filesystem::path& cgroup) {
  return ReadAndParse<PidsEvents>(tree, cgroup, "pids.events", &ParsePidsEvents);
}

}  // namespace podlimits::cgroups
