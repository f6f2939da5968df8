#include "cri/sandbox_spec.h"

#include <fmt/format.h>

namespace podlimits::cri {

namespace {
constexpr std::uint32_t kHolderId = 65535;  // the pause image's user and group
}  // namespace

Result<Spec> BuildSandboxSpec(const SandboxSpecInput& input) {
  if (input.pod == nullptr) return Failure("render sandbox spec: no pod given");
  if (!input.rootfs.is_absolute() || !input.holder_binary.is_absolute()) {
    return Failure(fmt::format("render sandbox spec: rootfs \"{}\" and holder \"{}\" must be "
                               "absolute paths",
                               input.rootfs.string(), input.holder_binary.string()));
  }
  const api::PodSpec& pod = input.pod->spec;
  Spec spec;
  spec.process.args = {kHolderMountPoint, "-P"};
  spec.process.env = {"PATH=/"};
  spec.process.user = {kHolderId, kHolderId, {kHolderId}};
  spec.process.capabilities = SpecCapabilities{};
  spec.process.no_new_privileges = true;
  spec.root = {input.rootfs.string(), true};
  // The runtime makes the standard device nodes; they need a /dev of their own on a read-only
  // root.
  spec.mounts.push_back({"/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=64k"}});
  spec.mounts.push_back(
      {kHolderMountPoint, "bind", input.holder_binary.string(), {"rbind", "ro", "nosuid", "nodev"}});
  if (!pod.host_network) spec.hostname = input.pod->metadata.name;
  auto& ns = spec.linux.namespaces;
  if (!pod.host_pid) ns.push_back({"pid", ""});
  if (!pod.host_ipc) ns.push_back({"ipc", ""});
  if (!pod.host_network) ns.push_back({"uts", ""});
  ns.push_back({"mount", ""});
  if (!pod.host_network) ns.push_back({"network", ""});
  ns.push_back({"cgroup", ""});
  spec.linux.cgroups_path = input.cgroups_path;
  return spec;
}

std::string HolderNamespacePath(pid_t holder_pid, std::string_view type) {
  // The files under /proc/<pid>/ns are named net, ipc, uts, pid; the spec says "network".
  return fmt::format("/proc/{}/ns/{}", holder_pid, type == "network" ? "net" : type);
}

}  // namespace podlimits::cri
