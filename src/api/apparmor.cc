#include "api/apparmor.h"

#include <fmt/format.h>

namespace podlimits::api {
namespace {

bool IsGoSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool SameProfile(const AppArmorProfile& a, const std::optional<AppArmorProfile>& b) {
  return b && a.type == b->type && a.localhost_profile == b->localhost_profile;
}

std::vector<Container>& ListOf(PodSpec& spec, ContainerKind kind) {
  switch (kind) {
    case ContainerKind::kInit:
      return spec.init_containers;
    case ContainerKind::kEphemeral:
      return spec.ephemeral_containers;
    case ContainerKind::kContainer:
      break;
  }
  return spec.containers;
}

}  // namespace

std::optional<AppArmorProfile> AppArmorFieldForAnnotation(std::string_view value) {
  if (value == "unconfined") return AppArmorProfile{"Unconfined", std::nullopt};
  if (value == "runtime/default") return AppArmorProfile{"RuntimeDefault", std::nullopt};
  constexpr std::string_view kLocalhost = "localhost/";
  if (value.starts_with(kLocalhost) && value.size() > kLocalhost.size()) {
    return AppArmorProfile{"Localhost", std::string(value.substr(kLocalhost.size()))};
  }
  return std::nullopt;
}

bool ValidAppArmorProfileField(const AppArmorProfile& profile) {
  if (profile.type == "RuntimeDefault" || profile.type == "Unconfined") {
    return !profile.localhost_profile;
  }
  if (profile.type != "Localhost" || !profile.localhost_profile) return false;
  const std::string& p = *profile.localhost_profile;
  if (p.empty() || IsGoSpace(p.front()) || IsGoSpace(p.back())) return false;
  return p.size() <= 4095;  // PATH_MAX - 1
}

std::vector<AppArmorSkew> AppArmorVersionSkew(const Pod& pod) {
  std::vector<AppArmorSkew> out;
  if (pod.spec.IsWindows() || pod.metadata.annotations.empty()) return out;
  std::optional<AppArmorProfile> pod_profile;
  if (pod.spec.security_context) pod_profile = pod.spec.security_context->app_armor_profile;
  VisitContainers(pod.spec, [&](const Container& c) {
    std::string key = std::string(kAppArmorAnnotationPrefix) + c.name;
    auto it = pod.metadata.annotations.find(key);
    if (it == pod.metadata.annotations.end()) return;
    if (c.security_context && c.security_context->app_armor_profile) return;
    std::optional<AppArmorProfile> field = AppArmorFieldForAnnotation(it->second);
    if (field && !ValidAppArmorProfileField(*field)) field.reset();
    // No usable field: warn. A usable one is copied (and warned about) unless the pod-level
    // profile already says the same.
    bool warn = !field;
    if (field && SameProfile(*field, pod_profile)) field.reset();
    if (field) warn = true;
    if (warn || field) out.push_back({c.kind, c.index, std::move(key), std::move(field), warn});
  });
  return out;
}

void ApplyAppArmorSkew(PodSpec& spec, const std::vector<AppArmorSkew>& skew) {
  for (const AppArmorSkew& s : skew) {
    if (!s.copy) continue;
    Container& c = ListOf(spec, s.kind)[s.index];
    if (!c.security_context) c.security_context.emplace();
    c.security_context->app_armor_profile = s.copy;
  }
}

std::string AppArmorDeprecationWarning(std::string_view annotation_key) {
  return fmt::format(
      R"(metadata.annotations[{}]: deprecated since v1.30; use the "appArmorProfile" field instead)",
      annotation_key);
}

}  // namespace podlimits::api
