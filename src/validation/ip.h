// IP address checks as apimachinery makes them (k8s.io/utils/net ParseIPSloppy, which still
// accepts IPv4 octets with leading zeros, for fields that always have).
#pragma once

#include <string_view>

#include "field/field.h"

namespace podlimits::validation {

// True when `value` is an IPv4 or IPv6 address as ParseIPSloppy reads it.
bool IsIPSloppy(std::string_view value);

// IsValidIP: `Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`.
field::ErrorList IsValidIP(const field::Path& path, std::string_view value);

}  // namespace podlimits::validation
