#include "validation/ip.h"

#include <arpa/inet.h>

#include <string>

namespace podlimits::validation {
namespace {

// Go's forked parseIPv4 with leading zeros accepted: four dot-separated decimal parts, each
// non-empty and at most 255.
bool IsIPv4Sloppy(std::string_view s) {
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (s.empty() || s.front() != '.') return false;
      s.remove_prefix(1);
    }
    int value = 0;
    std::size_t digits = 0;
    while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') {
      value = value * 10 + (s[digits] - '0');
      if (value > 0xFF) return false;
      ++digits;
    }
    if (digits == 0) return false;
    s.remove_prefix(digits);
  }
  return s.empty();
}

}  // namespace

bool IsIPSloppy(std::string_view value) {
  if (value.find(':') == std::string_view::npos) return IsIPv4Sloppy(value);
  in6_addr addr{};
  return inet_pton(AF_INET6, std::string(value).c_str(), &addr) == 1;
}

field::ErrorList IsValidIP(const field::Path& path, std::string_view value) {
  if (IsIPSloppy(value)) return {};
  return {field::Invalid(path, std::string(value),
                         "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")};
}

}  // namespace podlimits::validation
