#include "podstreams/upgrade_request.h"

#include <cctype>

namespace podlimits::apiserver {

std::vector<std::string> OfferedProtocols(const http::HttpRequest& request) {
  std::vector<std::string> out;
  auto it = request.headers.find("sec-websocket-protocol");
  if (it == request.headers.end()) return out;
  std::string_view rest = it->second;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

bool HeaderHasToken(const http::HttpRequest& request, const char* name, std::string_view token) {
  auto it = request.headers.find(name);
  if (it == request.headers.end()) return false;
  std::string lower = it->second;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find(token) != std::string::npos;
}

}  // namespace podlimits::apiserver
