// KEP-5474: securityContext.cgroupOptions.
#include "codec/json_codec.h"
#include "validation/pod.h"

namespace podlimits::validation {
namespace {

// Go renders a *CgroupOptions bad value through json.Marshal.
field::Json RenderCgroupOptions(const api::CgroupOptions& o) {
  codec::Node n = codec::Node::Object();
  if (o.mount_mode) n.Set("mountMode", codec::Node::String(*o.mount_mode));
  return field::Json{codec::EncodeJson(n, 0)};
}

}  // namespace

field::ErrorList ValidateCgroupOptions(const api::Container& c, const api::PodSpec& spec,
                                       const field::Path& path) {
  field::ErrorList errs;
  if (!c.security_context || !c.security_context->cgroup_options) return errs;
  const api::SecurityContext& sc = *c.security_context;
  field::Path opts = path.Child("cgroupOptions");
  if (c.kind == api::ContainerKind::kEphemeral) {
    errs.push_back(field::Forbidden(opts, "cannot be set for an Ephemeral Container"));
    return errs;
  }
  if (spec.IsWindows()) {
    errs.push_back(field::Forbidden(opts, "cannot be set for a windows pod"));
    return errs;
  }
  if (sc.windows_options) {
    errs.push_back(field::Invalid(opts, RenderCgroupOptions(*sc.cgroup_options),
                                  "cannot be set when WindowsOptions is specified"));
  }
  const auto& mode = sc.cgroup_options->mount_mode;
  if (mode && *mode != api::kMountModeReadOnly && *mode != api::kMountModeWritable) {
    errs.push_back(field::NotSupported(opts.Child("mountMode"), *mode,
                                       {std::string(api::kMountModeReadOnly),
                                        std::string(api::kMountModeWritable)}));
  }
  return errs;
}

field::ErrorList ValidateCgroupOptionsUpdate(const api::Container& updated,
                                             const api::Container& old, const field::Path& path) {
  field::ErrorList errs;
  auto mode_of = [](const api::Container& c) -> std::optional<std::optional<std::string>> {
    if (!c.security_context || !c.security_context->cgroup_options) return std::nullopt;
    return c.security_context->cgroup_options->mount_mode;
  };
  if (mode_of(updated) != mode_of(old)) {
    field::Json value{"null"};
    if (updated.security_context && updated.security_context->cgroup_options) {
      value = RenderCgroupOptions(*updated.security_context->cgroup_options);
    }
    errs.push_back(field::Invalid(path.Child("cgroupOptions"), value, "field is immutable"));
  }
  return errs;
}

}  // namespace podlimits::validation
