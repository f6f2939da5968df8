#include "listwatch/request_info.h"

#include <cctype>
#include <string>
#include <vector>

namespace podlimits::apiserver {
namespace {

std::vector<std::string> Segments(const std::string& path) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < path.size()) {
    std::size_t next = path.find('/', pos);
    if (next == std::string::npos) next = path.size();
    if (next > pos) out.push_back(path.substr(pos, next - pos));
    pos = next + 1;
  }
  return out;
}

}  // namespace

std::optional<RequestInfo> ParseRequestInfo(const http::HttpRequest& request) {
  std::vector<std::string> parts = Segments(request.path);
  RequestInfo info;
  if (parts.size() >= 3 && parts[0] == "api" && parts[1] == "v1") {
    parts.erase(parts.begin(), parts.begin() + 2);
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    info.group = parts[1];
    info.version = parts[2];
    parts.erase(parts.begin(), parts.begin() + 3);
  } else {
    return std::nullopt;
  }
  // namespaces/{ns}/...: the namespace is {ns}; what follows is a resource of it unless it is
  // one of the namespace's own subresources (status, finalize), as upstream decides.
  if (parts[0] == "namespaces" && parts.size() >= 2) {
    info.namespace_ = parts[1];
    if (parts.size() > 2 && parts[2] != "status" && parts[2] != "finalize") {
      parts.erase(parts.begin(), parts.begin() + 2);
    }
  }
  if (parts.size() > 3) return std::nullopt;
  info.resource = parts[0];
  if (parts.size() >= 2) info.name = parts[1];
  if (parts.size() == 3) info.subresource = parts[2];

  const std::string& m = request.method;
  if (m == "GET" || m == "HEAD") {
    if (QueryFlag(request, "watch")) {
      info.verb = "watch";
    } else {
      info.verb = info.name.empty() ? "list" : "get";
    }
  } else if (m == "POST") {
    info.verb = "create";
  } else if (m == "PUT") {
    info.verb = "update";
  } else if (m == "PATCH") {
    info.verb = "patch";
  } else if (m == "DELETE") {
    info.verb = info.name.empty() ? "deletecollection" : "delete";
  } else {
    info.verb = m;  // refused by the caller as not supported
  }
  return info;
}

bool QueryFlag(const http::HttpRequest& request, std::string_view key) {
  auto it = request.query.find(std::string(key));
  if (it == request.query.end()) return false;
  std::string lower = it->second;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower != "false" && lower != "0";
}

}  // namespace podlimits::apiserver
