#include "recommend/observed_peaks.h"

#include <charconv>
#include <cstdlib>
#include <vector>

namespace podlimits::recommend {
namespace {

struct Line {
  std::string_view name;
  std::map<std::string, std::string> labels;
  std::string_view value;
};

// NAME{LABEL="VALUE",...} VALUE, with the exposition format's escapes (\\, \", \n) in values.
std::optional<Line> ParseLine(std::string_view line) {
  Line out;
  const std::size_t brace = line.find('{');
  const std::size_t space = line.find(' ');
  if (brace == std::string_view::npos || brace > space) {
    if (space == std::string_view::npos) return std::nullopt;
    out.name = line.substr(0, space);
    out.value = line.substr(space + 1);
    return out;
  }
  out.name = line.substr(0, brace);
  std::size_t i = brace + 1;
  while (i < line.size() && line[i] != '}') {
    const std::size_t eq = line.find("=\"", i);
    if (eq == std::string_view::npos) return std::nullopt;
    std::string key(line.substr(i, eq - i));
    std::string value;
    i = eq + 2;
    for (; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        ++i;
        value += line[i] == 'n' ? '\n' : line[i];
      } else {
        value += line[i];
      }
    }
    if (i >= line.size()) return std::nullopt;
    ++i;  // the closing quote
    if (i < line.size() && line[i] == ',') ++i;
    out.labels[std::move(key)] = std::move(value);
  }
  if (i >= line.size() || i + 2 > line.size()) return std::nullopt;
  out.value = line.substr(i + 2);
  return out;
}

std::optional<std::int64_t> Integer(std::string_view text) {
  std::int64_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return n;
}

}  // namespace

std::map<std::string, ObservedPod> ParseObservedPeaks(std::string_view text) {
  std::map<std::string, ObservedPod> pods;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    pos = end + 1;
    if (!raw.starts_with("podlimits_")) continue;
    auto line = ParseLine(raw);
    if (!line) continue;
    auto uid = line->labels.find("uid");
    if (uid == line->labels.end()) continue;
    const auto n = Integer(line->value);
    if (line->name == "podlimits_pod_pids_peak") {
      if (n) pods[uid->second].pids_peak_kernel = *n;
    } else if (line->name == "podlimits_pod_pids_sampled_peak") {
      if (n) pods[uid->second].pids_peak_sampled = *n;
    } else if (line->name == "podlimits_container_process_file_descriptors_sampled_peak") {
      auto container = line->labels.find("container");
      if (n && container != line->labels.end()) {
        pods[uid->second].open_files_peak[container->second] = *n;
      }
    } else if (line->name == "podlimits_pod_observed_seconds") {
      pods[uid->second].observed_seconds = std::strtod(std::string(line->value).c_str(), nullptr);
    } else if (line->name == "podlimits_pod_usage_samples") {
      if (n) pods[uid->second].samples = *n;
    }
  }
  return pods;
}

}  // namespace podlimits::recommend
