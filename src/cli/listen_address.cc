#include "cli/listen_address.h"

#include <arpa/inet.h>

namespace podlimits::cli {

std::optional<ListenAddress> ParseListen(const std::string& text, bool any_port) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 == text.size()) return std::nullopt;
  ListenAddress out;
  out.host = text.substr(0, colon);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  }
  const std::string port = text.substr(colon + 1);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5) {
    return std::nullopt;
  }
  const int p = std::stoi(port);
  if ((p < 1 && !(any_port && p == 0)) || p > 65535) return std::nullopt;
  out.port = static_cast<std::uint16_t>(p);
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, out.host.c_str(), &v4) != 1 &&
      inet_pton(AF_INET6, out.host.c_str(), &v6) != 1) {
    return std::nullopt;
  }
  return out;
}

}  // namespace podlimits::cli
