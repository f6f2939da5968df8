#include "base/clock_text.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

namespace podlimits {

std::string Rfc3339Now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

std::string Rfc3339NanoNow() {
  const auto now = std::chrono::system_clock::now();
  const auto secs = std::chrono::floor<std::chrono::seconds>(now);
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now - secs).count();
  std::string fraction = fmt::format("{:09}", nanos);
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}{}{}Z", secs, fraction.empty() ? "" : ".", fraction);
}

std::string Rfc3339MicroNow() {
  const auto now = std::chrono::system_clock::now();
  const auto secs = std::chrono::floor<std::chrono::seconds>(now);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now - secs).count();
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:06}Z", secs, micros);
}

}  // namespace podlimits
