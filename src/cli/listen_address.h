// --listen ADDRESS:PORT, as serve and webhook take it: an IP address (IPv6 in brackets) and a
// port.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace podlimits::cli {

struct ListenAddress {
  std::string host;  // without brackets
  std::uint16_t port = 0;
};

// nullopt unless `text` is ADDRESS:PORT with an IP address; port 0 (any free one) only with
// `any_port`.
std::optional<ListenAddress> ParseListen(const std::string& text, bool any_port = false);

}  // namespace podlimits::cli
