// The process_* metrics every Kubernetes component exposes (client_golang's process collector):
// CPU seconds, resident and virtual memory, open and maximum file descriptors, start time, read
// from /proc/self when scraped.
#pragma once

#include <string>

namespace podlimits::nodeagent {

std::string ProcessMetricsText();

}  // namespace podlimits::nodeagent
