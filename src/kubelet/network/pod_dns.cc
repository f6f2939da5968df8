#include "kubelet/network/pod_dns.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "validation/pod.h"

namespace podlimits::kubelet {
namespace {

constexpr std::size_t kDNS1123SubdomainMaxLength = 253;

std::vector<std::string> Fields(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  while (i < line.size()) {
    while (i < line.size() && space(line[i])) ++i;
    std::size_t start = i;
    while (i < line.size() && !space(line[i])) ++i;
    if (i > start) out.emplace_back(line.substr(start, i - start));
  }
  return out;
}

void AppendUnique(std::vector<std::string>& into, const std::vector<std::string>& more) {
  // omitDuplicates over the concatenation: `into` itself may hold duplicates from the host.
  std::vector<std::string> out;
  std::set<std::string> kept;
  for (const auto& s : into) {
    if (kept.insert(s).second) out.push_back(s);
  }
  for (const auto& s : more) {
    if (kept.insert(s).second) out.push_back(s);
  }
  into = std::move(out);
}

// mergeDNSOptions: by name, the pod's value winning. Go iterates a map here, so upstream's order
// is random; podlimits writes them sorted by name.
std::vector<std::string> MergeOptions(const std::vector<std::string>& existing,
                                      const std::vector<api::PodDNSConfigOption>& pod_options) {
  std::map<std::string, std::string> merged;
  for (const auto& op : existing) {
    auto colon = op.find(':');
    if (colon == std::string::npos) {
      merged[op] = "";
    } else {
      merged[op.substr(0, colon)] = op.substr(colon + 1);
    }
  }
  for (const auto& op : pod_options) merged[op.name] = op.value.value_or("");
  std::vector<std::string> out;
  for (const auto& [name, value] : merged) {
    out.push_back(value.empty() ? name : name + ":" + value);
  }
  return out;
}

// formDNSSearchFitsLimits.
std::vector<std::string> FitSearches(std::vector<std::string> searches, std::vector<Event>& events) {
  bool exceeded = false;
  if (searches.size() > validation::kMaxDNSSearchPaths) {
    searches.resize(validation::kMaxDNSSearchPaths);
    exceeded = true;
  }
  // glibc aborts on a search path over 255 characters; such paths are dropped.
  auto too_long = [](const std::string& s) { return s.size() > kDNS1123SubdomainMaxLength; };
  if (std::erase_if(searches, too_long) > 0) exceeded = true;
  std::size_t length = validation::SearchLineLength(searches);
  if (length > validation::kMaxDNSSearchListChars) {
    std::size_t cut_len = 0, cut = 0;
    for (std::size_t i = searches.size(); i-- > 0;) {
      cut_len += searches[i].size() + 1;
      ++cut;
      if (length - cut_len <= validation::kMaxDNSSearchListChars) break;
    }
    searches.resize(searches.size() - cut);
    exceeded = true;
  }
  if (exceeded) {
    events.push_back({EventType::kWarning, "DNSConfigForming",
                      "Search Line limits were exceeded, some search paths have been omitted, "
                      "the applied search line is: " +
                          fmt::format("{}", fmt::join(searches, " "))});
  }
  return searches;
}

std::vector<std::string> FitNameservers(std::vector<std::string> servers,
                                        std::vector<Event>& events) {
  if (servers.size() > validation::kMaxDNSNameservers) {
    servers.resize(validation::kMaxDNSNameservers);
    events.push_back({EventType::kWarning, "DNSConfigForming",
                      "Nameserver limits were exceeded, some nameservers have been omitted, the "
                      "applied nameserver line is: " +
                          fmt::format("{}", fmt::join(servers, " "))});
  }
  return servers;
}

}  // namespace

DnsConfig ParseResolvConf(std::string_view text, std::vector<std::string>* errors) {
  DnsConfig out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::vector<std::string> fields = Fields(text.substr(pos, end - pos));
    pos = end + 1;
    if (fields.empty() || fields[0].starts_with('#')) continue;
    if (fields[0] == "nameserver") {
      if (fields.size() >= 2) {
        out.servers.push_back(fields[1]);
      } else if (errors) {
        errors->push_back("nameserver list is empty ");
      }
    } else if (fields[0] == "search") {
      out.searches.clear();
      for (std::size_t i = 1; i < fields.size(); ++i) {
        std::string s = fields[i];
        if (s.ends_with('.')) s.pop_back();
        out.searches.push_back(std::move(s));
      }
    } else if (fields[0] == "options") {
      out.options.assign(fields.begin() + 1, fields.end());
    }
  }
  return out;
}

Result<PodDns> MakePodDns(const DnsSettings& settings, const api::Pod& pod,
                          std::string_view host_resolv_conf, std::string_view pod_description) {
  PodDns out;
  DnsConfig& config = out.config;
  if (!settings.resolv_conf.empty()) {
    std::vector<std::string> errors;
    config = ParseResolvConf(host_resolv_conf, &errors);
    if (!errors.empty()) return Failure(field::Aggregate(errors));
  }
  const std::string& policy = pod.spec.dns_policy;
  const bool cluster = policy == api::kDNSClusterFirstWithHostNet ||
                       ((policy == api::kDNSClusterFirst || policy.empty()) &&
                        !pod.spec.host_network);
  bool host = policy == api::kDNSDefault ||
              (policy == api::kDNSClusterFirst && pod.spec.host_network);
  if (policy == api::kDNSNone) {
    config = DnsConfig{};
  } else if (cluster && !settings.cluster_dns.empty()) {
    config.servers = settings.cluster_dns;
    if (!settings.cluster_domain.empty()) {
      const std::string& domain = settings.cluster_domain;
      std::vector<std::string> searches = {
          fmt::format("{}.svc.{}", pod.metadata.namespace_, domain), "svc." + domain, domain};
      AppendUnique(searches, config.searches);
      config.searches = std::move(searches);
    }
    config.options = {"ndots:5"};
  } else if (cluster) {
    const std::string node_message = fmt::format(
        "kubelet does not have ClusterDNS IP configured and cannot create Pod using \"{}\" "
        "policy. Falling back to \"{}\" policy.",
        api::kDNSClusterFirst, api::kDNSDefault);
    out.events.push_back({EventType::kWarning, "MissingClusterDNS",
                          fmt::format("pod: \"{}\". {}", pod_description, node_message)});
    host = true;
  }
  if (host && settings.resolv_conf.empty()) {
    // The kubelet adds one per node IP; a node without known IPs gets the IPv4 loopback.
    config.servers.push_back("127.0.0.1");
    config.searches = {"."};
  }
  if (pod.spec.dns_config) {
    AppendUnique(config.servers, pod.spec.dns_config->nameservers);
    AppendUnique(config.searches, pod.spec.dns_config->searches);
    config.options = MergeOptions(config.options, pod.spec.dns_config->options);
  }
  config.servers = FitNameservers(std::move(config.servers), out.events);
  config.searches = FitSearches(std::move(config.searches), out.events);
  return out;
}

std::string ResolvConfContent(const DnsConfig& config) {
  std::string out;
  if (!config.searches.empty()) out += fmt::format("search {}\n", fmt::join(config.searches, " "));
  if (!config.servers.empty()) {
    out += fmt::format("nameserver {}\n", fmt::join(config.servers, "\nnameserver "));
  }
  if (!config.options.empty()) out += fmt::format("options {}\n", fmt::join(config.options, " "));
  return out;
}

}  // namespace podlimits::kubelet
