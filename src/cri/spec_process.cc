// The process of a container's spec: what it runs, as whom, with which capabilities and limits.
#include "cri/oci_capabilities.h"
#include "cri/oci_process.h"
#include "cri/oci_process_user.h"
#include "cri/spec_opts.h"

namespace podlimits::cri {

Result<void> WithProcessArgs(const ContainerSpecInput& input, Spec& spec) {
  const api::Container& c = *input.container;
  const EnvList& container_env = input.env;
  auto args = ProcessArgs(c, input.image, container_env);
  if (!args) return std::unexpected(args.error());
  auto cwd = ProcessCwd(c, input.image);
  if (!cwd) return std::unexpected(cwd.error());
  const api::Pod& pod = *input.pod;
  const std::string hostname = pod.spec.host_network ? HostName() : input.hostname;
  spec.process.args = std::move(*args);
  // tty: the process gets a terminal; its master comes back through the console socket.
  spec.process.terminal = c.tty;
  spec.process.cwd = std::move(*cwd);
  spec.process.env = ProcessEnv(input.image, container_env, hostname);
  return {};
}

Result<void> WithUser(const ContainerSpecInput& input, Spec& spec) {
  auto user = ResolveProcessUser(*input.pod, *input.container, input.image, input.rootfs);
  if (!user) return std::unexpected(user.error());
  spec.process.user = {user->uid, user->gid, std::move(user->additional_gids)};
  return {};
}

Result<void> WithCapabilities(const ContainerSpecInput& input, Spec& spec) {
  auto caps = ContainerCapabilities(*input.container, input.host_capabilities);
  if (!caps) return std::unexpected(caps.error());
  // The same set for root and other users, as containerd writes it; inheritable and ambient
  // stay empty (CVE-2022-24769), so a non-root process holds none after execve.
  spec.process.capabilities = SpecCapabilities{*caps, *caps, *caps, {}, {}};
  return {};
}

Result<void> WithRlimits(const ContainerSpecInput& input, Spec& spec) {
  spec.process.rlimits = input.rlimits;
  return {};
}

Result<void> WithNoNewPrivileges(const ContainerSpecInput& input, Spec& spec) {
  const api::Container& c = *input.container;
  spec.process.no_new_privileges = !c.IsPrivileged() && c.security_context &&
                                   c.security_context->allow_privilege_escalation == false;
  return {};
}

}  // namespace podlimits::cri
