// The pod annotations that still mean something to validation (ValidatePodSpecificAnnotations)
// and their consistency with the fields they were replaced by (ValidatePodCreate's
// validateSeccompAnnotationsAndFields / validateAppArmorAnnotationsAndFieldsMatchOnCreate).
// Go walks the annotation map in random order; podlimits walks it sorted.
#include <fmt/format.h>

#include "api/apparmor.h"
#include "validation/pod.h"

namespace podlimits::validation {
namespace {

constexpr std::string_view kSeccompPodAnnotation = "seccomp.security.alpha.kubernetes.io/pod";
constexpr std::string_view kSeccompContainerPrefix =
    "container.seccomp.security.alpha.kubernetes.io/";
constexpr std::string_view kSeccompLocalhostPrefix = "localhost/";

const field::Path kAnnotations = field::Path("metadata").Child("annotations");

// validateLocalDescendingPath: relative, and no ".." element.
field::ErrorList ValidateLocalDescendingPath(const std::string& target, const field::Path& path) {
  field::ErrorList errs;
  if (target.starts_with('/'))
    errs.push_back(field::Invalid(path, target, "must be a relative path"));
  std::size_t start = 0;
  while (true) {
    std::size_t slash = target.find('/', start);
    std::string_view part = std::string_view(target).substr(
        start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "..") {
      errs.push_back(field::Invalid(path, target, "must not contain '..'"));
      break;
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return errs;
}

// ValidateSeccompProfile (the annotation's value).
field::ErrorList ValidateSeccompProfile(const std::string& p, const field::Path& path) {
  if (p == "runtime/default" || p == "docker/default" || p == "unconfined") return {};
  if (p.starts_with(kSeccompLocalhostPrefix)) {
    return ValidateLocalDescendingPath(p.substr(kSeccompLocalhostPrefix.size()), path);
  }
  return {field::Invalid(path, p, "must be a valid seccomp profile")};
}

bool PodHasContainer(const api::PodSpec& spec, std::string_view name) {
  bool found = false;
  api::VisitContainers(spec, [&](const api::Container& c) { found = found || c.name == name; });
  return found;
}

// validateSeccompAnnotationsAndFieldsMatch.
std::optional<field::Error> SeccompMatch(const std::string& annotation,
                                         const api::SeccompProfile& profile,
                                         const field::Path& path) {
  constexpr std::string_view kDetail = "seccomp type in annotation and field must match";
  if (profile.type == "Unconfined" && annotation != "unconfined") {
    return field::Forbidden(path.Child("type"), std::string(kDetail));
  }
  if (profile.type == "RuntimeDefault" && annotation != "runtime/default" &&
      annotation != "docker/default") {
    return field::Forbidden(path.Child("type"), std::string(kDetail));
  }
  if (profile.type == "Localhost") {
    if (!annotation.starts_with(kSeccompLocalhostPrefix)) {
      return field::Forbidden(path.Child("type"), std::string(kDetail));
    }
    if (!profile.localhost_profile ||
        annotation.substr(kSeccompLocalhostPrefix.size()) != *profile.localhost_profile) {
      return field::Forbidden(path.Child("localhostProfile"),
                              "seccomp profile in annotation and field must match");
    }
  }
  return std::nullopt;
}

// The AppArmor counterpart, for a container's effective profile.
std::optional<field::Error> AppArmorMatch(const std::string& annotation,
                                          const api::AppArmorProfile& profile,
                                          const field::Path& path) {
  constexpr std::string_view kDetail = "apparmor type in annotation and field must match";
  if (profile.type == "Unconfined" && annotation != "unconfined") {
    return field::Forbidden(path.Child("type"), std::string(kDetail));
  }
  if (profile.type == "RuntimeDefault" && annotation != "runtime/default") {
    return field::Forbidden(path.Child("type"), std::string(kDetail));
  }
  if (profile.type == "Localhost") {
    constexpr std::string_view kPrefix = "localhost/";
    if (!annotation.starts_with(kPrefix)) {
      return field::Forbidden(path.Child("type"), std::string(kDetail));
    }
    if (!profile.localhost_profile ||
        annotation.substr(kPrefix.size()) != *profile.localhost_profile) {
      return field::Forbidden(path.Child("localhostProfile"),
                              "apparmor profile in annotation and field must match");
    }
  }
  return std::nullopt;
}

}  // namespace

field::ErrorList ValidatePodSpecificAnnotations(const api::ObjectMeta& meta,
                                                const api::PodSpec& spec) {
  field::ErrorList errs;
  const auto& annotations = meta.annotations;
  // ValidateSeccompPodAnnotations: note Child, not Key: "metadata.annotations.seccomp...".
  if (auto it = annotations.find(std::string(kSeccompPodAnnotation)); it != annotations.end()) {
    field::Append(errs, ValidateSeccompProfile(it->second, kAnnotations.Child(it->first)));
  }
  for (const auto& [key, value] : annotations) {
    if (key.starts_with(kSeccompContainerPrefix)) {
      field::Append(errs, ValidateSeccompProfile(value, kAnnotations.Child(key)));
    }
  }
  // ValidateAppArmorPodAnnotations.
  for (const auto& [key, value] : annotations) {
    if (!key.starts_with(api::kAppArmorAnnotationPrefix)) continue;
    std::string container = key.substr(api::kAppArmorAnnotationPrefix.size());
    if (!PodHasContainer(spec, container)) {
      errs.push_back(field::Invalid(kAnnotations.Key(key), container, "container not found"));
    }
    bool valid_format = value.empty() || value == "runtime/default" || value == "unconfined" ||
                        value.starts_with("localhost/");
    if (!valid_format) {
      errs.push_back(
          field::Invalid(kAnnotations.Key(key), value,
                         fmt::format("invalid AppArmor profile name: {}", field::GoQuote(value))));
    }
  }
  return errs;
}

field::ErrorList ValidatePodSpecificAnnotationUpdates(const api::ObjectMeta& updated,
                                                      const api::ObjectMeta& old,
                                                      const api::PodSpec& spec) {
  // The AppArmor annotations are fixed at creation: the kubelet applied them when it started the
  // containers. (Upstream fixes the mirror-pod annotation too, together with spec.nodeName checks
  // that podlimits, which has no static pods, does not model.)
  field::ErrorList errs;
  for (const auto& [key, old_value] : old.annotations) {
    auto now = updated.annotations.find(key);
    if (now != updated.annotations.end() && now->second == old_value) continue;
    if (key.starts_with(api::kAppArmorAnnotationPrefix)) {
      errs.push_back(
          field::Forbidden(kAnnotations.Key(key), "may not remove or update AppArmor annotations"));
    }
  }
  for (const auto& [key, value] : updated.annotations) {
    if (old.annotations.contains(key)) continue;
    if (key.starts_with(api::kAppArmorAnnotationPrefix)) {
      errs.push_back(field::Forbidden(kAnnotations.Key(key), "may not add AppArmor annotations"));
    }
  }
  field::Append(errs, ValidatePodSpecificAnnotations(updated, spec));
  return errs;
}

field::ErrorList ValidateAnnotationsMatchFields(const api::ObjectMeta& meta,
                                                const api::PodSpec& spec) {
  field::ErrorList errs;
  const auto& annotations = meta.annotations;
  if (annotations.empty()) return errs;
  // validateSeccompAnnotationsAndFields.
  if (spec.security_context && spec.security_context->seccomp_profile) {
    if (auto it = annotations.find(std::string(kSeccompPodAnnotation)); it != annotations.end()) {
      field::Path p = field::Path("spec").Child("securityContext").Child("seccompProfile");
      if (auto e = SeccompMatch(it->second, *spec.security_context->seccomp_profile, p)) {
        errs.push_back(std::move(*e));
      }
    }
  }
  api::VisitContainers(spec, [&](const api::Container& c) {
    const field::Path path = api::ContainerPath(c);
    if (!c.security_context || !c.security_context->seccomp_profile) return;
    auto it = annotations.find(std::string(kSeccompContainerPrefix) + c.name);
    if (it == annotations.end()) return;
    field::Path p = path.Child("securityContext").Child("seccompProfile");
    if (auto e = SeccompMatch(it->second, *c.security_context->seccomp_profile, p)) {
      errs.push_back(std::move(*e));
    }
  });
  // validateAppArmorAnnotationsAndFieldsMatchOnCreate (not for windows pods).
  if (spec.IsWindows()) return errs;
  std::optional<api::AppArmorProfile> pod_profile;
  if (spec.security_context) pod_profile = spec.security_context->app_armor_profile;
  api::VisitContainers(spec, [&](const api::Container& c) {
    const field::Path path = api::ContainerPath(c);
    std::optional<api::AppArmorProfile> profile = pod_profile;
    if (c.security_context && c.security_context->app_armor_profile) {
      profile = c.security_context->app_armor_profile;
    }
    if (!profile) return;
    auto it = annotations.find(std::string(api::kAppArmorAnnotationPrefix) + c.name);
    if (it == annotations.end()) return;
    field::Path p = path.Child("securityContext").Child("appArmorProfile");
    if (auto e = AppArmorMatch(it->second, *profile, p)) errs.push_back(std::move(*e));
  });
  return errs;
}

}  // namespace podlimits::validation
