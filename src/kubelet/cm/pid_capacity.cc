#include "kubelet/cm/pid_capacity.h"

#include <fmt/format.h>

#include <charconv>
#include <sstream>

#include "base/fs.h"
#include "base/error.h"

namespace podlimits::kubelet {
namespace {

std::optional<std::int64_t> ParseInt(std::string_view s) {
  // Upstream drops the last byte (the newline); trimming whitespace reads the same files and
  // does not lose a digit from a file written without one.
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> ReadIntFile(const std::filesystem::path& path) {
  auto text = ReadWholeFile(path);
  if (!text) return std::nullopt;
  return ParseInt(*text);
}

}  // namespace

std::optional<std::int64_t> PidCapacity::Capacity() const {
  if (pid_max && threads_max) return std::min(*pid_max, *threads_max);
  return pid_max ? pid_max : threads_max;
}

PidCapacity ReadPidCapacity(const std::filesystem::path& proc_root) {
  return PidCapacity{ReadIntFile(proc_root / "sys/kernel/pid_max"),
                     ReadIntFile(proc_root / "sys/kernel/threads-max")};
}

Result<std::int64_t> ReadTaskCount(const std::filesystem::path& proc_root) {
  auto text = ReadWholeFile(proc_root / "loadavg");
  if (!text) {
    return Failure(fmt::format("cannot read {}", (proc_root / "loadavg").string()));
  }
  std::istringstream fields(*text);
  std::string f[4];
  for (auto& s : f) {
    if (!(fields >> s)) return Failure("not enough fields in /proc/loadavg");
  }
  auto slash = f[3].find('/');
  if (slash == std::string::npos) {
    return Failure("error parsing fourth field of /proc/loadavg");
  }
  auto total = ParseInt(std::string_view(f[3]).substr(slash + 1));
  if (!total) return Failure("error parsing fourth field of /proc/loadavg");
  return *total;
}

std::int64_t PidAllocatable(std::int64_t capacity, const resource::Quantity& system_reserved,
                            const resource::Quantity& kube_reserved) {
  resource::Quantity value = resource::Quantity::NewQuantity(capacity, resource::QuantityFormat::kDecimalSI);
  value.Sub(system_reserved);
  value.Sub(kube_reserved);
  if (value.Sign() < 0) return 0;
  return value.Value();
}

std::int64_t PidAllocatable(std::int64_t capacity, const NodeConfig& config) {
  return PidAllocatable(capacity, config.SystemReservedPids(), config.KubeReservedPids());
}

std::optional<std::int64_t> KubepodsPidsMax(std::optional<std::int64_t> capacity,
                                            const NodeConfig& config) {
  if (!capacity) return std::nullopt;
  if (config.EnforcesPodsAllocatable()) return PidAllocatable(*capacity, config);
  return *capacity;
}

}  // namespace podlimits::kubelet
