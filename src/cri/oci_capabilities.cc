#include "cri/oci_capabilities.h"

#include <array>
#include <cctype>
#include <charconv>

#include "base/fs.h"
#include "base/error.h"
#include "cri/oci_process.h"
#include "cri/oci_spec.h"
#include "fmt/format.h"

namespace podlimits::cri {
namespace {

// Indexed by capability number (linux/capability.h). Every name fits in a uint64 mask.
constexpr std::array<std::string_view, 41> kCapabilities = {
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETPCAP",
    "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE",
    "CAP_NET_BROADCAST",
    "CAP_NET_ADMIN",
    "CAP_NET_RAW",
    "CAP_IPC_LOCK",
    "CAP_IPC_OWNER",
    "CAP_SYS_MODULE",
    "CAP_SYS_RAWIO",
    "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE",
    "CAP_SYS_PACCT",
    "CAP_SYS_ADMIN",
    "CAP_SYS_BOOT",
    "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE",
    "CAP_SYS_TIME",
    "CAP_SYS_TTY_CONFIG",
    "CAP_MKNOD",
    "CAP_LEASE",
    "CAP_AUDIT_WRITE",
    "CAP_AUDIT_CONTROL",
    "CAP_SETFCAP",
    "CAP_MAC_OVERRIDE",
    "CAP_MAC_ADMIN",
    "CAP_SYSLOG",
    "CAP_WAKE_ALARM",
    "CAP_BLOCK_SUSPEND",
    "CAP_AUDIT_READ",
    "CAP_PERFMON",
    "CAP_BPF",
    "CAP_CHECKPOINT_RESTORE",
};
constexpr std::uint64_t kAllKnown = (std::uint64_t{1} << kCapabilities.size()) - 1;

// containerd's default set for non-privileged containers (pkg/oci defaultUnixCaps), which is
// also what Kubernetes documents as "the container runtime's default".
constexpr std::array<std::string_view, 14> kDefaultCapabilities = {
    "CAP_CHOWN",   "CAP_DAC_OVERRIDE", "CAP_FSETID",           "CAP_FOWNER",
    "CAP_MKNOD",   "CAP_NET_RAW",      "CAP_SETGID",           "CAP_SETUID",
    "CAP_SETFCAP", "CAP_SETPCAP",      "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
    "CAP_KILL",    "CAP_AUDIT_WRITE",
};

std::optional<int> CapabilityNumber(std::string_view normalized) {
  for (std::size_t i = 0; i < kCapabilities.size(); ++i) {
    if (kCapabilities[i] == normalized) return static_cast<int>(i);
  }
  return std::nullopt;
}

std::uint64_t Bit(int number) {
  return std::uint64_t{1} << number;
}

std::uint64_t MaskOf(const std::vector<std::string>& names) {
  std::uint64_t mask = 0;
  for (const auto& name : names) {
    if (auto n = NormalizeCapability(name)) mask |= Bit(*CapabilityNumber(*n));
  }
  return mask;
}

bool IsAll(std::string_view name) {
  return name.size() == 3 && std::toupper(static_cast<unsigned char>(name[0])) == 'A' &&
         std::toupper(static_cast<unsigned char>(name[1])) == 'L' &&
         std::toupper(static_cast<unsigned char>(name[2])) == 'L';
}

}  // namespace

std::optional<std::string> NormalizeCapability(std::string_view name) {
  std::string upper;
  upper.reserve(name.size() + 4);
  for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // Kubernetes writes capabilities without the prefix; accept it anyway rather than produce
  // "CAP_CAP_..." as containerd would.
  if (!upper.starts_with("CAP_")) upper.insert(0, "CAP_");
  if (!CapabilityNumber(upper)) return std::nullopt;
  return upper;
}

std::vector<std::string> CapabilityNamesFromMask(std::uint64_t mask) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < kCapabilities.size(); ++i) {
    if (mask & Bit(static_cast<int>(i))) out.emplace_back(kCapabilities[i]);
  }
  return out;
}

std::optional<std::uint64_t> ParseCapBnd(std::string_view proc_status) {
  constexpr std::string_view kKey = "CapBnd:";
  std::size_t pos = 0;
  while (pos < proc_status.size()) {
    std::size_t end = proc_status.find('\n', pos);
    if (end == std::string_view::npos) end = proc_status.size();
    std::string_view line = proc_status.substr(pos, end - pos);
    pos = end + 1;
    if (!line.starts_with(kKey)) continue;
    line.remove_prefix(kKey.size());
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    std::uint64_t mask = 0;
    auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), mask, 16);
    if (line.empty() || ec != std::errc() || ptr != line.data() + line.size()) return std::nullopt;
    return mask;
  }
  return std::nullopt;
}

std::vector<std::string> BoundingCapabilities() {
  // An unreadable /proc gives an empty set: containers then get no capabilities at all, which
  // fails safe (crun would refuse the ones the host lacks, and we cannot tell which those are).
  auto text = ReadWholeFile("/proc/self/status");
  if (!text) return {};
  auto mask = ParseCapBnd(*text);
  if (!mask) return {};
  return CapabilityNamesFromMask(*mask);
}

Result<std::vector<std::string>> ContainerCapabilities(
    const api::Container& container, const std::vector<std::string>& host_capabilities) {
  const std::uint64_t host = MaskOf(host_capabilities) & kAllKnown;
  const auto& sc = container.security_context;
  // Privileged ignores add and drop, as containerd's WithPrivileged does.
  if (container.IsPrivileged()) return CapabilityNamesFromMask(host);

  std::uint64_t set = 0;
  for (auto name : kDefaultCapabilities) set |= Bit(*CapabilityNumber(name));
  if (!sc || !sc->capabilities) return CapabilityNamesFromMask(set & host);

  // containerd's order: add ALL, drop ALL, then the named adds, then the named drops; so a
  // name both added and dropped ends up dropped, and `drop: [ALL]` + `add: [X]` keeps X.
  const auto& add = sc->capabilities->add;
  const auto& drop = sc->capabilities->drop;
  std::string field = fmt::format("{}.securityContext.capabilities", ContainerFieldPath(container));
  for (const auto& name : add) {
    if (IsAll(name)) set = kAllKnown;
  }
  for (const auto& name : drop) {
    if (IsAll(name)) set = 0;
  }
  std::uint64_t added = 0;
  for (std::size_t i = 0; i < add.size(); ++i) {
    if (IsAll(add[i])) continue;
    auto n = NormalizeCapability(add[i]);
    if (!n) {
      return Failure(fmt::format("{}.add[{}]: unknown capability \"{}\"", field, i, add[i]));
    }
    set |= Bit(*CapabilityNumber(*n));
    added |= Bit(*CapabilityNumber(*n));
  }
  for (const auto& name : drop) {
    // Dropping a name that is no capability removes nothing; the runtime would not object.
    if (auto n = NormalizeCapability(name)) set &= ~Bit(*CapabilityNumber(*n));
  }

  // The runtime fails to start a container that asks for a capability outside its own
  // bounding set, so an explicit request for one is refused here, by its field; capabilities
  // that came from the defaults or from ALL are quietly limited to what the host has.
  std::uint64_t missing = set & added & ~host;
  for (std::size_t i = 0; missing != 0 && i < add.size(); ++i) {
    if (IsAll(add[i])) continue;
    std::string n = *NormalizeCapability(add[i]);
    if (missing & Bit(*CapabilityNumber(n))) {
      return Failure(fmt::format(
          "{}.add[{}]: capability {} is not in the capability bounding set of the container "
          "runtime on this node",
          field, i, n));
    }
  }
  return CapabilityNamesFromMask(set & host);
}

}  // namespace podlimits::cri
