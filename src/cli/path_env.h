// The PATH the kubelet library looks the OCI runtime up in: the caller's, or the usual one.
#pragma once

#include <cstdlib>
#include <string>

namespace podlimits::cli {

inline std::string PathEnv() {
  const char* path = std::getenv("PATH");
  return path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
}

}  // namespace podlimits::cli
