// ValidatePodCreate / ValidatePodUpdate: object metadata, containers, and the per-area checks.
#include "validation/pod.h"

#include <fmt/format.h>

#include <set>

#include "validation/object_meta.h"

namespace podlimits::validation {
namespace {

const field::Path kSpec("spec");

void ValidateContainer(const api::Container& c, const api::PodSpec& spec,
                       std::set<std::string>& names, const FeatureGates& gates,
                       const std::set<std::string>& pod_claim_names, ValidationResult& out) {
  field::Path path = api::ContainerPath(c);
  if (c.name.empty()) {
    out.errors.push_back(field::Required(path.Child("name"), ""));
  } else {
    for (auto& msg : IsDNS1123Label(c.name)) {
      out.errors.push_back(field::Invalid(path.Child("name"), c.name, msg));
    }
    if (!names.insert(c.name).second) {
      out.errors.push_back(field::Duplicate(path.Child("name"), c.name));
    }
  }
  if (c.image.empty()) out.errors.push_back(field::Required(path.Child("image"), ""));
  if (c.restart_policy && c.kind != api::ContainerKind::kEphemeral) {
    if (c.kind == api::ContainerKind::kInit) {
      if (*c.restart_policy != "Always") {
        out.errors.push_back(
            field::NotSupported(path.Child("restartPolicy"), *c.restart_policy, {"Always"}));
      }
    } else {
      out.errors.push_back(
          field::Forbidden(path.Child("restartPolicy"), "may not be set for non-init containers"));
    }
  }
  field::Append(out.errors,
                ValidateContainerResources(c, path.Child("resources"), gates, pod_claim_names));
  field::Path sc = path.Child("securityContext");
  ValidateUlimits(c, spec, sc, out);
  field::Append(out.errors, ValidateCgroupOptions(c, spec, sc));
  if (c.kind == api::ContainerKind::kEphemeral) {
    field::Append(out.errors, EphemeralContainerRules(c, spec));
  }
}

void ValidateSpec(const api::PodSpec& spec, const FeatureGates& gates, ValidationResult& out) {
  // gatherPodResourceClaimNames.
  std::set<std::string> pod_claim_names;
  for (const auto& n : spec.resource_claim_names) {
    if (!n.empty()) pod_claim_names.insert(n);
  }
  if (spec.containers.empty()) {
    out.errors.push_back(field::Required(kSpec.Child("containers"), ""));
  }
  std::set<std::string> names;
  for (const auto& c : spec.containers)
    ValidateContainer(c, spec, names, gates, pod_claim_names, out);
  for (const auto& c : spec.init_containers) {
    ValidateContainer(c, spec, names, gates, pod_claim_names, out);
  }
  for (const auto& c : spec.ephemeral_containers) {
    ValidateContainer(c, spec, names, gates, pod_claim_names, out);
  }
  field::Append(out.errors, ValidatePodLevelResources(spec, gates, pod_claim_names));
  static const std::vector<std::string> kRestartPolicies = {"Always", "Never", "OnFailure"};
  if (spec.restart_policy.empty()) {
    out.errors.push_back(field::Required(kSpec.Child("restartPolicy"), ""));
  } else if (spec.restart_policy != "Always" && spec.restart_policy != "Never" &&
             spec.restart_policy != "OnFailure") {
    out.errors.push_back(
        field::NotSupported(kSpec.Child("restartPolicy"), spec.restart_policy, kRestartPolicies));
  }
  field::Append(out.errors, ValidateDNSPolicy(spec));
  field::Append(out.errors, ValidatePodDNSConfig(spec));
  field::Append(out.errors, ValidatePodHostnames(spec));
  field::Append(out.errors, ValidateHostAliases(spec));
  if (spec.termination_grace_period_seconds && *spec.termination_grace_period_seconds < 0) {
    out.errors.push_back(field::Invalid(kSpec.Child("terminationGracePeriodSeconds"),
                                        *spec.termination_grace_period_seconds,
                                        "must be greater than or equal to 0"));
  }
  field::Append(out.errors, ValidateOverhead(spec, gates));
  if (spec.os_name) {
    if (*spec.os_name != "linux" && *spec.os_name != "windows") {
      out.errors.push_back(field::NotSupported(kSpec.Child("os").Child("name"), *spec.os_name,
                                               {"linux", "windows"}));
    } else if (spec.IsWindows()) {
      field::Append(out.errors, ValidateWindows(spec));
    } else {
      field::Append(out.errors, ValidateLinux(spec));
    }
  }
}

}  // namespace

ValidationResult ValidatePodCreate(const api::Pod& pod, const FeatureGates& gates) {
  ValidationResult out;
  out.errors =
      ValidateObjectMeta(pod.metadata, true, NameRule::kDNSSubdomain, field::Path("metadata"));
  field::Append(out.errors, ValidatePodSpecificAnnotations(pod.metadata, pod.spec));
  ValidateSpec(pod.spec, gates, out);
  if (!pod.spec.ephemeral_containers.empty()) {
    // Ephemeral containers are added through the ephemeralcontainers subresource only.
    out.errors.push_back(
        field::Forbidden(kSpec.Child("ephemeralContainers"), "cannot be set on create"));
  }
  field::Append(out.errors, ValidateAnnotationsMatchFields(pod.metadata, pod.spec));
  return out;
}

ValidationResult ValidatePodUpdate(const api::Pod& updated, const api::Pod& old,
                                   const FeatureGates& gates) {
  ValidationResult out;
  out.errors =
      ValidateObjectMeta(updated.metadata, true, NameRule::kDNSSubdomain, field::Path("metadata"));
  field::Append(out.errors, ValidatePodSpecificAnnotations(updated.metadata, updated.spec));
  ValidateSpec(updated.spec, gates, out);
  field::Append(out.errors,
                ValidatePodSpecificAnnotationUpdates(updated.metadata, old.metadata, updated.spec));
  auto compare = [&](const std::vector<api::Container>& now,
                     const std::vector<api::Container>& before) {
    for (const auto& c : now) {
      for (const auto& o : before) {
        if (o.name != c.name) continue;
        field::Path sc = api::ContainerPath(c).Child("securityContext");
        field::Append(out.errors, ValidateCgroupOptionsUpdate(c, o, sc));
      }
    }
  };
  compare(updated.spec.containers, old.spec.containers);
  compare(updated.spec.init_containers, old.spec.init_containers);
  compare(updated.spec.ephemeral_containers, old.spec.ephemeral_containers);
  return out;
}

std::string InvalidMessage(std::string_view kind, const api::ObjectMeta& meta,
                           const field::ErrorList& errors) {
  // NewInvalid names the object by metadata.name (generated by then for a generateName create).
  return fmt::format("{} {} is invalid: {}", kind, field::GoQuote(meta.name),
                     field::Aggregate(errors));
}

}  // namespace podlimits::validation
