// Which OCI runtime binary this node uses, from NodeConfiguration.runtime: an explicit path, or
// the runtime's name looked up in PATH (crun, falling back to runc when no name is configured).
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "cgroups/detect.h"
#include "kubelet/config/node_config.h"

namespace podlimits::kubelet {

struct RuntimeInfo {
  std::string name;     // "crun" / "runc"; empty when none was found
  std::string path;     // absolute path of the binary
  std::string version;  // "1.8.1"; empty when not asked for or not readable
  // Both crun and runc apply OCI process.rlimits (ContainerUlimits) and mount cgroup2
  // read-write inside a cgroup namespace when the spec asks (CgroupOptions); podlimits always
  // gives a writable container its own cgroup namespace, where the kernel ignores mount-time
  // root flags, so crun < 1.27 dropping cgroup2 mount options is harmless there.
  bool applies_rlimits = false;
  bool supports_writable_cgroups = false;
  std::string error;  // why no runtime was found
  // Why `podlimits run` cannot use this runtime on this node at all (RuntimeUnusable); "" when
  // it can. Nothing is declared for a runtime that cannot run.
  std::string unusable;

  bool Found() const { return !path.empty(); }
};

// Resolves the runtime binary. `path_env` is a PATH value ("" searches nothing). Fails with
// `no OCI runtime found: looked for "crun", "runc" in PATH` or a message about runtime.path.
Result<RuntimeInfo> FindRuntime(const RuntimeSettings& settings, std::string_view path_env);

// Why `run` cannot use `runtime` on a node in cgroup `mode`, or "": runc 1.1 on cgroup v1 writes
// the container's device rules into the devices hierarchy and refuses to start without it
// ("mountpoint for devices not found"), and on a v1/hybrid node podlimits shows the runtime only
// the pids hierarchy (managed_controllers.h). crun works there; on v2 both do.
std::string RuntimeUnusable(const RuntimeInfo& runtime, std::optional<cgroups::CgroupMode> mode);

// Runs `<path> --root <dir> --version` and returns the version of its first line ("crun version
// 1.8.1" -> "1.8.1"); "" when that fails. crun creates its --root even for --version (/run/crun
// by default), so <dir> is a temporary directory, removed again before returning. Costs a
// process start, so only node-info asks for it.
std::string RuntimeVersion(const std::string& path);

// The version from `--version` output (first line, third word).
std::string ParseRuntimeVersion(std::string_view output);

}  // namespace podlimits::kubelet
