// The KubeletConfiguration fields podlimits interprets, validated with the kubelet's own
// messages (pkg/kubelet/apis/config/validation, cmd/kubelet/app/server.go) where it has them.
#include <fmt/format.h>

#include <arpa/inet.h>

#include <algorithm>
#include <filesystem>

#include <map>

#include "codec/go_duration.h"
#include "field/field.h"
#include "kubelet/config/node_config_documents.h"
#include "kubelet/config/reserved_resources.h"
#include "kubelet/sysctl/sysctl_allowlist.h"
#include "validation/ip.h"
#include "validation/object_meta.h"

namespace podlimits::kubelet::config_internal {
namespace {

constexpr std::string_view kSystemReservedKey = "system-reserved";
constexpr std::string_view kKubeReservedKey = "kube-reserved";

std::map<std::string, std::string> StringMap(const codec::Node* n) {
  std::map<std::string, std::string> out;
  if (!n || !n->IsObject()) return out;
  for (const auto& m : n->members) out[m.key] = m.value.scalar;
  return out;
}

std::string StringOr(const codec::Node& tree, std::string_view key, std::string_view fallback) {
  const codec::Node* n = tree.Find(key);
  return n && n->IsString() ? n->scalar : std::string(fallback);
}

void ApplyReserved(const codec::Node& tree, std::string_view key, api::ResourceList& out,
                   std::vector<std::string>& errs) {
  auto parsed = ParseReservedResources(StringMap(tree.Find(key)));
  if (parsed) {
    out = std::move(*parsed);
  } else {
    errs.push_back(fmt::format("{}: {}", key, parsed.error().Message()));
  }
}

void ApplyEviction(const codec::Node& tree, NodeConfig& out, std::vector<std::string>& errs) {
  auto hard = ParseThresholdStatements(StringMap(tree.Find("evictionHard")));
  if (!hard) errs.push_back(fmt::format("evictionHard: {}", hard.error().Message()));
  auto soft = ParseThresholdStatements(StringMap(tree.Find("evictionSoft")));
  if (!soft) errs.push_back(fmt::format("evictionSoft: {}", soft.error().Message()));
  auto grace = ParseGracePeriods(StringMap(tree.Find("evictionSoftGracePeriod")));
  if (!grace) {
    errs.push_back(fmt::format("evictionSoftGracePeriod: {}", grace.error().Message()));
  }
  auto reclaim = ParseMinimumReclaims(StringMap(tree.Find("evictionMinimumReclaim")));
  if (!reclaim) {
    errs.push_back(fmt::format("evictionMinimumReclaim: {}", reclaim.error().Message()));
  }
  if (const codec::Node* period = tree.Find("evictionPressureTransitionPeriod");
      period != nullptr && period->IsString()) {
    if (auto d = codec::ParseGoDuration(period->scalar)) {
      out.eviction_pressure_transition_period = *d;
    } else {
      errs.push_back(fmt::format("evictionPressureTransitionPeriod: {}", d.error().Message()));
    }
  }
  if (const codec::Node* max = tree.Find("evictionMaxPodGracePeriod");
      max != nullptr && max->kind == codec::Node::Kind::kNumber) {
    out.eviction_max_pod_grace_period = std::stoll(max->scalar);
  }
  if (!hard || !soft || !grace || !reclaim) return;
  // parseThresholdConfig: every soft threshold needs a grace period.
  if (auto joined = CompleteThresholds(*hard, *soft, *grace, *reclaim); !joined) {
    errs.push_back(fmt::format("evictionSoft: {}", joined.error().Message()));
    return;
  }
  out.eviction_hard = std::move(*hard);
  out.eviction_soft = std::move(*soft);
}

void ApplyEnforceNodeAllocatable(const codec::Node& tree, bool cgroups_per_qos, NodeConfig& out,
                                 std::vector<std::string>& errs) {
  if (const codec::Node* list = tree.Find("enforceNodeAllocatable")) {
    out.enforce_node_allocatable.clear();
    for (const auto& item : list->items) out.enforce_node_allocatable.push_back(item.scalar);
  }
  const auto& values = out.enforce_node_allocatable;
  if (!cgroups_per_qos && !values.empty()) {
    errs.push_back(
        "invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) is not "
        "supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true");
  }
  const field::Path path("enforceNodeAllocatable");
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string& v = values[i];
    if (v == kEnforcePods) continue;
    if (v == kEnforceNone) {
      if (values.size() > 1) {
        errs.push_back(fmt::format(
            "invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) may not "
            "contain additional enforcements when {} is specified",
            field::GoQuote(kEnforceNone)));
      }
      continue;
    }
    if (v == kSystemReservedKey || v == kKubeReservedKey) {
      bool system = v == kSystemReservedKey;
      std::string cgroup_field = system ? "systemReservedCgroup" : "kubeReservedCgroup";
      if (StringOr(tree, cgroup_field, "").empty()) {
        errs.push_back(fmt::format(
            "invalid configuration: {} (--{}-cgroup) must be specified when {} contained in "
            "enforceNodeAllocatable (--enforce-node-allocatable)",
            cgroup_field, v, field::GoQuote(v)));
      } else {
        // Valid for a kubelet, but podlimits bounds only the kubepods cgroup.
        errs.push_back(
            field::Invalid(path.Index(i), v,
                           "podlimits enforces node allocatable on the kubepods cgroup only; "
                           "supported values: \"pods\", \"none\"")
                .String());
      }
      continue;
    }
    errs.push_back(fmt::format(
        "invalid configuration: option {} specified for enforceNodeAllocatable "
        "(--enforce-node-allocatable). Valid options are {}, {}, {}, or {}",
        field::GoQuote(v), field::GoQuote(kEnforcePods), field::GoQuote(kSystemReservedKey),
        field::GoQuote(kKubeReservedKey), field::GoQuote(kEnforceNone)));
  }
}

void ApplyCgroups(const codec::Node& tree, NodeConfig& out, std::vector<std::string>& errs) {
  // The kubelet's default cgroupRoot is "", meaning the root of the hierarchy.
  out.cgroup_root = StringOr(tree, "cgroupRoot", "");
  if (out.cgroup_root.empty()) out.cgroup_root = "/";
  if (!out.cgroup_root.starts_with('/')) {
    errs.push_back(field::Invalid(field::Path("cgroupRoot"), out.cgroup_root,
                                  "must be an absolute cgroup path (starting with \"/\")")
                       .String());
  }
  out.cgroup_driver = StringOr(tree, "cgroupDriver", "");
  if (out.cgroup_driver.empty()) out.cgroup_driver = "cgroupfs";
  if (out.cgroup_driver == "systemd") {
    errs.push_back(field::Error{field::ErrorType::kNotSupported, "cgroupDriver", out.cgroup_driver,
                                "the systemd cgroup driver is not supported: podlimits creates "
                                "the pod cgroups itself through cgroupfs; use \"cgroupfs\""}
                       .String());
  } else if (out.cgroup_driver != "cgroupfs") {
    errs.push_back(
        field::NotSupported(field::Path("cgroupDriver"), out.cgroup_driver, {"cgroupfs"}).String());
  }
}

// clusterDNS, clusterDomain, resolvConf. The kubelet logs and skips a clusterDNS entry that is
// not an IP; podlimits refuses it, since pods would silently resolve through fewer servers.
void ApplyDns(const codec::Node& tree, NodeConfig& out, std::vector<std::string>& errs) {
  if (const codec::Node* list = tree.Find("clusterDNS"); list && list->IsArray()) {
    for (std::size_t i = 0; i < list->items.size(); ++i) {
      const std::string& ip = list->items[i].scalar;
      for (auto& e : validation::IsValidIP(field::Path("clusterDNS").Index(i), ip)) {
        errs.push_back(e.String());
      }
      out.dns.cluster_dns.push_back(ip);
    }
  }
  out.dns.cluster_domain = StringOr(tree, "clusterDomain", "");
  if (!out.dns.cluster_domain.empty()) {
    for (auto& msg : validation::IsDNS1123Subdomain(out.dns.cluster_domain)) {
      errs.push_back(
          field::Invalid(field::Path("clusterDomain"), out.dns.cluster_domain, msg).String());
    }
  }
  // An explicit "" means no host resolver (the kubelet's --resolv-conf="").
  if (const codec::Node* n = tree.Find("resolvConf"); n && n->IsString()) {
    out.dns.resolv_conf = n->scalar;
  }
}

// containerLogMaxSize, containerLogMaxFiles, podLogsDir, with the kubelet's checks and words.
void ApplyContainerLogs(const codec::Node& tree, NodeConfig& out, std::vector<std::string>& errs) {
  if (const codec::Node* n = tree.Find("containerLogMaxSize"); n && n->IsString()) {
    auto q = resource::Quantity::Parse(n->scalar);
    if (!q || q->Value() <= 0) {
      errs.push_back(field::Invalid(field::Path("containerLogMaxSize"), n->scalar,
                                    "must be a positive quantity of bytes, e.g. 10Mi")
                         .String());
    } else {
      out.container_log_max_size = q->Value();
    }
  }
  if (const codec::Node* n = tree.Find("containerLogMaxFiles")) {
    out.container_log_max_files = static_cast<int>(n->AsInt().value_or(0));
    if (out.container_log_max_files <= 1) {
      errs.push_back("invalid configuration: containerLogMaxFiles must be greater than 1");
    }
  }
  if (const codec::Node* n = tree.Find("podLogsDir"); n && n->IsString()) {
    const std::string& dir = n->scalar;
    if (dir.empty()) {
      errs.push_back("invalid configuration: podLogsDir was not specified");
    } else if (dir.front() != '/') {
      errs.push_back(fmt::format("invalid configuration: pod logs path {} must be absolute path",
                                 field::GoQuote(dir)));
    } else if (std::filesystem::path(dir).lexically_normal().string() != dir ||
               (dir.size() > 1 && dir.back() == '/')) {  // Go's filepath.Clean(dir) != dir
      errs.push_back(fmt::format("invalid configuration: pod logs path {} must be normalized",
                                 field::GoQuote(dir)));
    } else if (std::any_of(dir.begin(), dir.end(),
                           [](char c) { return static_cast<unsigned char>(c) > 127; })) {
      errs.push_back(fmt::format("invalid configuration: pod logs path {} mut contains ASCII "
                                 "characters only",
                                 field::GoQuote(dir)));
    } else {
      out.pod_logs_dir = dir;
    }
  }
}

// podCIDR: the subnet of the default CNI network, an IPv4 CIDR with room for pods.
void ApplyPodCidr(const codec::Node& tree, NodeConfig& out, std::vector<std::string>& errs) {
  const codec::Node* n = tree.Find("podCIDR");
  if (!n || !n->IsString() || n->scalar.empty()) return;
  const std::string& cidr = n->scalar;
  const auto slash = cidr.find('/');
  in_addr addr{};
  int bits = -1;
  if (slash != std::string::npos) {
    const std::string prefix = cidr.substr(slash + 1);
    if (!prefix.empty() && prefix.size() <= 2 &&
        std::all_of(prefix.begin(), prefix.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      bits = std::stoi(prefix);
    }
  }
  if (slash == std::string::npos || inet_pton(AF_INET, cidr.substr(0, slash).c_str(), &addr) != 1 ||
      bits < 8 || bits > 30) {
    errs.push_back(field::Invalid(field::Path("podCIDR"), cidr,
                                  "must be an IPv4 CIDR with a prefix length from 8 to 30, "
                                  "e.g. 10.244.0.0/16")
                       .String());
    return;
  }
  out.pod_cidr = cidr;
}

}  // namespace

std::vector<std::string> ApplyKubeletConfiguration(const codec::Node& tree, NodeConfig& out) {
  std::vector<std::string> errs;

  if (const codec::Node* gates = tree.Find("featureGates")) {
    std::map<std::string, bool> map;
    for (const auto& m : gates->members) map[m.key] = m.value.AsBool();
    if (auto g = validation::FeatureGates::FromMap(map)) {
      out.feature_gates = *g;
    } else {
      errs.push_back(fmt::format("featureGates: {}", g.error().Message()));
    }
  }

  // podPidsLimit: -1 (the default) and 0 both mean "no pod-level pids.max"; the kubelet does not
  // validate it further.
  if (const codec::Node* n = tree.Find("podPidsLimit")) out.pod_pids_limit = n->AsInt().value_or(-1);
  // maxPods: the node's pods capacity (default 110), enforced by the scheduler's fit and the
  // kubelet's admission.
  if (const codec::Node* n = tree.Find("maxPods")) {
    out.max_pods = n->AsInt().value_or(110);
    if (out.max_pods < 0) {
      errs.push_back(fmt::format(
          "invalid configuration: maxPods (--max-pods) {} must not be a negative number",
          out.max_pods));
    }
  }
  if (const codec::Node* n = tree.Find("allowedUnsafeSysctls"); n && n->IsArray()) {
    for (const auto& item : n->items) out.allowed_unsafe_sysctls.push_back(item.scalar);
    for (auto& e : ValidateAllowedUnsafeSysctls(out.allowed_unsafe_sysctls)) {
      errs.push_back(std::move(e));
    }
  }
  // seccompDefault: RuntimeDefault for every container that sets no profile (KEP-2413).
  if (const codec::Node* n = tree.Find("seccompDefault")) out.seccomp.seccomp_default = n->AsBool();

  ApplyContainerLogs(tree, out, errs);
  out.static_pod_path = StringOr(tree, "staticPodPath", "");
  ApplyReserved(tree, "kubeReserved", out.kube_reserved, errs);
  ApplyReserved(tree, "systemReserved", out.system_reserved, errs);
  ApplyEviction(tree, out, errs);

  bool cgroups_per_qos = true;
  if (const codec::Node* n = tree.Find("cgroupsPerQOS")) cgroups_per_qos = n->AsBool();
  ApplyEnforceNodeAllocatable(tree, cgroups_per_qos, out, errs);
  if (!cgroups_per_qos) {
    errs.push_back(field::Invalid(field::Path("cgroupsPerQOS"), false,
                                  "not supported: podlimits places every pod under "
                                  "<cgroupRoot>/kubepods and its QoS cgroups")
                       .String());
  }
  ApplyCgroups(tree, out, errs);
  ApplyDns(tree, out, errs);
  ApplyPodCidr(tree, out, errs);
  return errs;
}

}  // namespace podlimits::kubelet::config_internal
