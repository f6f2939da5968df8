// The pod's name-resolution fields, as ValidatePodSpec checks them: dnsPolicy, dnsConfig,
// hostname, subdomain and hostAliases (apis/core/validation, Kubernetes 1.32 with
// ExpandedDNSConfig GA and RelaxedDNSSearchValidation off).
#include <fmt/format.h>

#include <numeric>

#include "codec/json_codec.h"
#include "validation/ip.h"
#include "validation/object_meta.h"
#include "validation/pod.h"

namespace podlimits::validation {
namespace {

const field::Path kSpec("spec");

void ValidateDNS1123Subdomain(std::string_view value, const field::Path& path,
                              field::ErrorList& errs) {
  for (auto& msg : IsDNS1123Subdomain(value)) {
    errs.push_back(field::Invalid(path, std::string(value), msg));
  }
}

void ValidateDNS1123Label(std::string_view value, const field::Path& path,
                          field::ErrorList& errs) {
  for (auto& msg : IsDNS1123Label(value)) {
    errs.push_back(field::Invalid(path, std::string(value), msg));
  }
}

// A []string bad value, which Go's field.Error prints through json.Marshal.
field::Json StringsValue(const std::vector<std::string>& values) {
  codec::Node list = codec::Node::Array();
  for (const auto& v : values) list.items.push_back(codec::Node::String(v));
  return field::Json{codec::EncodeJson(list, 0)};
}

}  // namespace

field::ErrorList ValidateDNSPolicy(const api::PodSpec& spec) {
  const field::Path path = kSpec.Child("dnsPolicy");
  const std::string& policy = spec.dns_policy;
  if (policy == api::kDNSClusterFirst || policy == api::kDNSClusterFirstWithHostNet ||
      policy == api::kDNSDefault || policy == api::kDNSNone) {
    return {};
  }
  if (policy.empty()) return {field::Required(path, "")};
  return {field::NotSupported(path, policy,
                              {std::string(api::kDNSClusterFirst), std::string(api::kDNSClusterFirstWithHostNet),
                               std::string(api::kDNSDefault), std::string(api::kDNSNone)})};
}

field::ErrorList ValidatePodDNSConfig(const api::PodSpec& spec) {
  const field::Path path = kSpec.Child("dnsConfig");
  field::ErrorList errs;
  const auto& config = spec.dns_config;
  if (spec.dns_policy == api::kDNSNone) {
    if (!config) {
      return {field::Required(
          path, fmt::format("must provide `dnsConfig` when `dnsPolicy` is {}", api::kDNSNone))};
    }
    if (config->nameservers.empty()) {
      return {field::Required(
          path.Child("nameservers"),
          fmt::format("must provide at least one DNS nameserver when `dnsPolicy` is {}",
                      api::kDNSNone))};
    }
  }
  if (!config) return errs;
  if (config->nameservers.size() > kMaxDNSNameservers) {
    errs.push_back(field::Invalid(path.Child("nameservers"), StringsValue(config->nameservers),
                                  fmt::format("must not have more than {} nameservers",
                                              kMaxDNSNameservers)));
  }
  for (std::size_t i = 0; i < config->nameservers.size(); ++i) {
    field::Append(errs, IsValidIP(path.Child("nameservers").Index(i), config->nameservers[i]));
  }
  if (config->searches.size() > kMaxDNSSearchPaths) {
    errs.push_back(field::Invalid(
        path.Child("searches"), StringsValue(config->searches),
        fmt::format("must not have more than {} search paths", kMaxDNSSearchPaths)));
  }
  if (SearchLineLength(config->searches) > kMaxDNSSearchListChars) {
    errs.push_back(field::Invalid(
        path.Child("searches"), StringsValue(config->searches),
        fmt::format("must not have more than {} characters (including spaces) in the search list",
                    kMaxDNSSearchListChars)));
  }
  for (std::size_t i = 0; i < config->searches.size(); ++i) {
    // A trailing dot (a fully qualified name) is fine.
    std::string_view search = config->searches[i];
    if (search.ends_with('.')) search.remove_suffix(1);
    ValidateDNS1123Subdomain(search, path.Child("searches").Index(i), errs);
  }
  for (std::size_t i = 0; i < config->options.size(); ++i) {
    if (config->options[i].name.empty()) {
      errs.push_back(
          field::Required(path.Child("options").Index(i), "Option.Name must not be empty"));
    }
  }
  return errs;
}

field::ErrorList ValidatePodHostnames(const api::PodSpec& spec) {
  field::ErrorList errs;
  if (!spec.hostname.empty()) ValidateDNS1123Label(spec.hostname, kSpec.Child("hostname"), errs);
  if (!spec.subdomain.empty()) {
    ValidateDNS1123Label(spec.subdomain, kSpec.Child("subdomain"), errs);
  }
  return errs;
}

field::ErrorList ValidateHostAliases(const api::PodSpec& spec) {
  field::ErrorList errs;
  const field::Path path = kSpec.Child("hostAliases");
  for (std::size_t i = 0; i < spec.host_aliases.size(); ++i) {
    const api::HostAlias& alias = spec.host_aliases[i];
    field::Append(errs, IsValidIP(path.Index(i).Child("ip"), alias.ip));
    for (std::size_t j = 0; j < alias.hostnames.size(); ++j) {
      ValidateDNS1123Subdomain(alias.hostnames[j], path.Index(i).Child("hostnames").Index(j),
                               errs);
    }
  }
  return errs;
}

std::size_t SearchLineLength(const std::vector<std::string>& searches) {
  if (searches.empty()) return 0;
  return std::accumulate(searches.begin(), searches.end(), searches.size() - 1,
                         [](std::size_t n, const std::string& s) { return n + s.size(); });
}

}  // namespace podlimits::validation
