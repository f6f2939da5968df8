#include "cri/oci_spec.h"

#include "cri/oci_process.h"
#include "cri/spec_opts.h"
#include "fmt/format.h"

namespace podlimits::cri {

std::span<const SpecOpt> ContainerSpecOpts() {
  static constexpr SpecOpt kOpts[] = {
      WithProcessArgs,     WithUser,       WithCapabilities, WithRlimits,
      WithNoNewPrivileges, WithRootfs,     WithHostname,     WithDefaultMounts,
      WithCgroupMount,     WithNamespaces, WithCgroupsPath,  WithMaskedPaths,
      WithSeccomp,         WithAppArmor,   WithVolumeMounts,
  };
  return kOpts;
}

Result<Spec> BuildContainerSpec(const ContainerSpecInput& input) {
  if (input.pod == nullptr || input.container == nullptr) {
    return Failure("render OCI spec: no pod or no container given");
  }
  const std::string field = ContainerFieldPath(*input.container);
  if (!input.rootfs.is_absolute()) {
    return Failure(
        fmt::format("{}: rootfs \"{}\" is not an absolute path", field, input.rootfs.string()));
  }
  if (!input.cgroups_path.starts_with('/')) {
    return Failure(
        fmt::format("{}: cgroups path \"{}\" is not absolute", field, input.cgroups_path));
  }
  Spec spec;
  for (SpecOpt opt : ContainerSpecOpts()) {
    if (auto ok = opt(input, spec); !ok) return std::unexpected(std::move(ok.error()));
  }
  return spec;
}

Result<std::string> RenderOciSpec(const ContainerSpecInput& input) {
  auto spec = BuildContainerSpec(input);
  if (!spec) return std::unexpected(std::move(spec.error()));
  return SerializeSpec(*spec);
}

}  // namespace podlimits::cri
