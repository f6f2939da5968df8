// The current time as the API writes it, in UTC: metav1.Time (RFC 3339 in seconds,
// "2026-11-26T01:02:03Z") and time.RFC3339Nano (trailing zeros of the fraction dropped, as the
// CRI log format and the kubelet's timestamps have it), and metav1.MicroTime (always six digits
// of fraction, "2026-11-26T01:02:03.000456Z", as a Lease's renewTime).
#pragma once

#include <string>

namespace podlimits {

std::string Rfc3339Now();
std::string Rfc3339NanoNow();
std::string Rfc3339MicroNow();

}  // namespace podlimits
