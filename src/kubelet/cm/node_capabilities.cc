#include "kubelet/cm/node_capabilities.h"

#include <linux/capability.h>

#include <array>
#include <charconv>

#include "base/fs.h"
#include "cri/kernel_limits.h"
#include "kubelet/cm/pid_capacity.h"

namespace podlimits::kubelet {
namespace {

constexpr std::array<UlimitResource, 6> kUlimits = {{
    {"core", "RLIMIT_CORE", RLIMIT_CORE},
    {"memlock", "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
    {"nice", "RLIMIT_NICE", RLIMIT_NICE},
    {"nofile", "RLIMIT_NOFILE", RLIMIT_NOFILE},
    {"rtprio", "RLIMIT_RTPRIO", RLIMIT_RTPRIO},
    {"stack", "RLIMIT_STACK", RLIMIT_STACK},
}};

// A file the machine does not have reads as empty: what it would have told is then unknown.
std::string ReadText(const std::filesystem::path& path) {
  return ReadWholeFile(path).value_or("");
}

void ProbeCgroups(const ProbeOptions& options, NodeCapabilities& caps) {
  auto layout = cgroups::DetectLayout(options.proc_root / "self/mountinfo", options.fs_root);
  if (!layout) {
    caps.cgroup_error = layout.error().Message();
    return;
  }
  caps.cgroup_mode = layout->mode;
  caps.nsdelegate = layout->unified && layout->unified->nsdelegate;
  caps.pids_controller = layout->V1For("pids") != nullptr || layout->UnifiedHas("pids");
  if (layout->mode == cgroups::CgroupMode::kV2) {
    caps.cpu_controller = layout->UnifiedHas("cpu");
    caps.memory_controller = layout->UnifiedHas("memory");
  }
}

}  // namespace

std::span<const UlimitResource> UlimitResources() {
  return kUlimits;
}

const UlimitResource* FindUlimitResource(std::string_view name) {
  for (const auto& u : kUlimits) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

void ProbeRlimits(NodeCapabilities& caps, const std::filesystem::path& proc_root) {
  caps.cap_sys_resource = cri::HasCapSysResource(ReadText(proc_root / "self/status"));
  for (const auto& u : kUlimits) {
    struct rlimit rl {};
    if (::getrlimit(static_cast<decltype(RLIMIT_CORE)>(u.resource), &rl) == 0) {
      caps.hard_limits.emplace(std::string(u.name),
                               rl.rlim_max == RLIM_INFINITY ? kRlimInfinity : rl.rlim_max);
    }
  }
  // nproc is no ulimit a pod may set (the pod PID limit covers it), but containers get a default
  // for it (default_rlimits.h), within the same kind of ceiling.
  if (struct rlimit rl {}; ::getrlimit(RLIMIT_NPROC, &rl) == 0) {
    caps.hard_limits.emplace("nproc", rl.rlim_max == RLIM_INFINITY ? kRlimInfinity : rl.rlim_max);
  }
  caps.nr_open = cri::ReadNrOpen(proc_root);
}

NodeCapabilities ProbeNodeCapabilities(const NodeConfig& config, const ProbeOptions& options) {
  NodeCapabilities caps;
  ProbeCgroups(options, caps);

  if (auto runtime = FindRuntime(config.runtime, options.path_env)) {
    caps.runtime = std::move(*runtime);
    caps.runtime.unusable = RuntimeUnusable(caps.runtime, caps.cgroup_mode);
    if (options.runtime_version) {
      caps.runtime.version = RuntimeVersion(caps.runtime.path);
    }
  } else {
    caps.runtime.error = runtime.error().Message();
  }

  ProbeRlimits(caps, options.proc_root);
  caps.apparmor = cri::ProbeAppArmor(options.fs_root);
  return caps;
}

}  // namespace podlimits::kubelet
