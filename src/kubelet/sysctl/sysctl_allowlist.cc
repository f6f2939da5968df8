#include "kubelet/sysctl/sysctl_allowlist.h"

#include <fmt/format.h>

#include <algorithm>

#include "field/field.h"

namespace podlimits::kubelet {

const std::vector<std::string>& SafeSysctls() {
  static const std::vector<std::string> safe = {
      "kernel.shm_rmid_forced",       "net.ipv4.ip_local_port_range",
      "net.ipv4.tcp_syncookies",      "net.ipv4.ping_group_range",
      "net.ipv4.ip_unprivileged_port_start", "net.ipv4.ip_local_reserved_ports",
      "net.ipv4.tcp_keepalive_time",  "net.ipv4.tcp_fin_timeout",
      "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes",
      "net.ipv4.tcp_rmem",            "net.ipv4.tcp_wmem",
  };
  return safe;
}

std::string_view SysctlNamespace(std::string_view name) {
  if (name.starts_with("kernel.shm") || name.starts_with("kernel.msg") || name == "kernel.sem" ||
      name.starts_with("fs.mqueue.")) {
    return "ipc";
  }
  if (name.starts_with("net.")) return "net";
  return "";
}

std::string NormalizeSysctlName(std::string_view name) {
  std::string out(name);
  // The kubelet swaps '/' and '.' only when the name uses '/' as the separator (a '.' inside a
  // component, such as an interface name, then becomes '/').
  const std::size_t slash = out.find('/'), dot = out.find('.');
  if (slash != std::string::npos && (dot == std::string::npos || slash < dot)) {
    for (char& c : out) c = c == '/' ? '.' : (c == '.' ? '/' : c);
  }
  return out;
}

std::vector<std::string> ValidateAllowedUnsafeSysctls(const std::vector<std::string>& allowed) {
  std::vector<std::string> errors;
  for (const std::string& entry : allowed) {
    std::string name = NormalizeSysctlName(entry);
    if (name.ends_with('*')) name.pop_back();
    if (SysctlNamespace(name).empty()) {
      errors.push_back(fmt::format("allowedUnsafeSysctls: the sysctls {} are not known to be "
                                   "namespaced",
                                   field::GoQuote(entry)));
    }
  }
  return errors;
}

std::optional<std::string> ForbiddenSysctl(const api::Pod& pod,
                                           const std::vector<std::string>& allowed_unsafe) {
  const auto& psc = pod.spec.security_context;
  if (!psc) return std::nullopt;
  for (const api::Sysctl& s : psc->sysctls) {
    const std::string name = NormalizeSysctlName(s.name);
    const auto& safe = SafeSysctls();
    const bool allowed =
        std::find(safe.begin(), safe.end(), name) != safe.end() ||
        std::any_of(allowed_unsafe.begin(), allowed_unsafe.end(), [&](const std::string& entry) {
          const std::string pattern = NormalizeSysctlName(entry);
          return pattern.ends_with('*') ? name.starts_with(pattern.substr(0, pattern.size() - 1))
                                        : name == pattern;
        });
    if (!allowed) return fmt::format("{} not allowlisted", field::GoQuote(name));
    const std::string_view ns = SysctlNamespace(name);
    if ((ns == "ipc" && pod.spec.host_ipc) || (ns == "net" && pod.spec.host_network)) {
      return fmt::format("{} not allowed with host {} enabled", field::GoQuote(name), ns);
    }
  }
  return std::nullopt;
}

}  // namespace podlimits::kubelet
