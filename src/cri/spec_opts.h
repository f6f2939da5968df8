// The options that build a container's Spec, one concern each, as containerd's oci.SpecOpts:
// BuildContainerSpec (oci_spec.h) applies kContainerSpecOpts in order. A new concern (seccomp,
// sysctls, a sandbox's namespaces to join, volume mounts, resources) is a new option in a file
// of its own and one line in that list. An option may read what an earlier one set.
#pragma once

#include <span>

#include "base/error.h"
#include "cri/oci_spec.h"
#include "cri/spec.h"

namespace podlimits::cri {

using SpecOpt = Result<void> (*)(const ContainerSpecInput& input, Spec& spec);

// spec_process.cc
Result<void> WithProcessArgs(const ContainerSpecInput& input, Spec& spec);  // args, env, cwd
Result<void> WithUser(const ContainerSpecInput& input, Spec& spec);
Result<void> WithCapabilities(const ContainerSpecInput& input, Spec& spec);
Result<void> WithRlimits(const ContainerSpecInput& input, Spec& spec);
Result<void> WithNoNewPrivileges(const ContainerSpecInput& input, Spec& spec);
// spec_mounts.cc
Result<void> WithRootfs(const ContainerSpecInput& input, Spec& spec);
Result<void> WithDefaultMounts(const ContainerSpecInput& input, Spec& spec);
Result<void> WithCgroupMount(const ContainerSpecInput& input, Spec& spec);
// spec_linux.cc
Result<void> WithHostname(const ContainerSpecInput& input, Spec& spec);
Result<void> WithNamespaces(const ContainerSpecInput& input, Spec& spec);
Result<void> WithCgroupsPath(const ContainerSpecInput& input, Spec& spec);
Result<void> WithMaskedPaths(const ContainerSpecInput& input, Spec& spec);
// spec_mounts.cc: the volumeMounts, after every default mount (a volume may cover one).
Result<void> WithVolumeMounts(const ContainerSpecInput& input, Spec& spec);
// linux.seccomp: the filter ContainerSeccomp resolved, if any.
Result<void> WithSeccomp(const ContainerSpecInput& input, Spec& spec);
// process.apparmorProfile: the profile ContainerAppArmorProfile chose, if any.
Result<void> WithAppArmor(const ContainerSpecInput& input, Spec& spec);

// In the order they apply.
std::span<const SpecOpt> ContainerSpecOpts();

}  // namespace podlimits::cri
