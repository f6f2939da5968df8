#include "image/name.h"

#include <algorithm>
#include <vector>

#include "base/error.h"
#include "fmt/format.h"

namespace podlimits::image {
namespace {

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool IsAlnum(char c) {
  return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z');
}
bool IsWord(char c) {
  return IsAlnum(c) || c == '_';
}

// path-component: [a-z0-9]+ ((\.|_|__|-+)[a-z0-9]+)*
bool IsPathComponent(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  for (std::size_t i = 0; i < s.size();) {
    if (IsLowerAlnum(s[i])) {
      ++i;
      continue;
    }
    std::size_t start = i;
    while (i < s.size() && !IsLowerAlnum(s[i])) ++i;
    std::string_view sep = s.substr(start, i - start);
    bool dashes = sep.find_first_not_of('-') == std::string_view::npos;
    if (!(sep == "." || sep == "_" || sep == "__" || dashes)) return false;
  }
  return true;
}

// domain: host-component ('.' host-component)* (':' port)?
bool IsDomain(std::string_view s) {
  std::string_view host = s;
  if (std::size_t colon = s.find(':'); colon != std::string_view::npos) {
    std::string_view port = s.substr(colon + 1);
    if (port.empty() || port.find_first_not_of("0123456789") != std::string_view::npos) {
      return false;
    }
    host = s.substr(0, colon);
  }
  std::size_t pos = 0;
  while (pos <= host.size()) {
    std::size_t dot = host.find('.', pos);
    if (dot == std::string_view::npos) dot = host.size();
    std::string_view part = host.substr(pos, dot - pos);
    if (part.empty() || !IsAlnum(part.front()) || !IsAlnum(part.back())) return false;
    for (char c : part) {
      if (!IsAlnum(c) && c != '-') return false;
    }
    pos = dot + 1;
  }
  return true;
}

bool IsTag(std::string_view s) {
  if (s.empty() || s.size() > 128 || !IsWord(s.front())) return false;
  for (char c : s) {
    if (!IsWord(c) && c != '.' && c != '-') return false;
  }
  return true;
}

}  // namespace

Result<ImageName> ParseImageName(std::string_view text) {
  auto invalid = [&](std::string_view why) {
    return Failure(fmt::format("invalid image name \"{}\": {}", text, why));
  };
  if (text.empty()) return invalid("empty");
  if (text.find('@') != std::string_view::npos) {
    return invalid("digest references are not supported; name the image NAME:TAG");
  }
  // The tag follows the last ':' after the last '/'; a ':' before it is a registry port.
  std::string_view repository = text;
  std::string_view tag = "latest";
  std::size_t slash = text.rfind('/');
  std::size_t colon = text.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    repository = text.substr(0, colon);
    tag = text.substr(colon + 1);
    if (!IsTag(tag)) return invalid("the tag must match [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
  }
  if (repository.size() > 255) return invalid("the repository name is longer than 255 characters");

  std::vector<std::string_view> parts;
  for (std::size_t pos = 0; pos <= repository.size();) {
    std::size_t end = repository.find('/', pos);
    if (end == std::string_view::npos) end = repository.size();
    parts.push_back(repository.substr(pos, end - pos));
    pos = end + 1;
  }
  // As docker: the first component is a registry host if it looks like one (a dot, a port,
  // "localhost", or uppercase, which no repository path may contain).
  std::size_t first_path = 0;
  std::string_view first = parts.front();
  bool has_upper =
      std::any_of(first.begin(), first.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  if (parts.size() > 1 &&
      (first.find_first_of(".:") != std::string_view::npos || first == "localhost" || has_upper)) {
    if (!IsDomain(first)) return invalid(fmt::format("\"{}\" is not a valid registry host", first));
    first_path = 1;
  }
  for (std::size_t i = first_path; i < parts.size(); ++i) {
    if (!IsPathComponent(parts[i])) {
      return invalid(fmt::format(
          "\"{}\" must be lowercase letters and digits, separated by '.', '_', '__' or '-'",
          parts[i]));
    }
  }
  return ImageName{std::string(repository), std::string(tag)};
}

}  // namespace podlimits::image
