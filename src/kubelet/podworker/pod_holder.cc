#include "kubelet/podworker/pod_holder.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>

#include "base/child_reaper.h"
#include "cri/oci_process.h"
#include "kubelet/sysctl/sysctl_allowlist.h"

namespace podlimits::kubelet {

namespace fs = std::filesystem;

std::expected<PodHolder, Error> StartPodHolder(const HolderStarter& start, const PodPlan& plan,
                                               const cgroups::AppliedPodCgroup& cgroup,
                                               const fs::path& binary) {
  cri::HolderRequest request;
  request.hostname = plan.hostnames.kernel;
  request.host_network = plan.pod.spec.host_network;
  request.host_ipc = plan.pod.spec.host_ipc;
  request.host_pid = plan.pod.spec.host_pid;
  request.binary = binary;
  if (const auto& psc = plan.pod.spec.security_context) {
    for (const api::Sysctl& s : psc->sysctls) {
      // The dotted name's '.' separate directories; a '/' in it is a '.' in a file name
      // (net.ipv4.conf.eth0/1.forwarding is net/ipv4/conf/eth0.1/forwarding).
      std::string rel = NormalizeSysctlName(s.name);
      for (char& c : rel) c = c == '.' ? '/' : (c == '/' ? '.' : c);
      std::string path = "/proc/sys/" + rel;
      request.sysctls.emplace_back(std::move(path), s.value);
    }
  }
  request.root = plan.pod_dir / kSandboxName;
  if (mkdir(request.root.c_str(), 0755) != 0) {
    return std::unexpected(SystemError("mkdir", request.root, errno).error());
  }
  // The holder's own cgroup, as the pause container has one: the pod cgroup may have no
  // processes of its own on cgroup v2 once it delegates controllers to its children.
  for (const auto& h : cgroup.hierarchies) {
    const fs::path dir = h.pod_cgroup_dir / plan.sandbox_id;
    if (mkdir(dir.c_str(), 0755) != 0) {
      return std::unexpected(SystemError("create the pod sandbox's cgroup", dir, errno).error());
    }
    request.cgroup_procs.push_back(dir / "cgroup.procs");
  }
  auto pid = start(request);
  if (!pid) return std::unexpected(std::move(pid.error()));
  return PodHolder{*pid};
}

void StopPodHolder(PodHolder& holder) {
  if (holder.pid <= 0) return;
  // Our child: the pid is ours until this reaps it.
  ChildReaper::Process().KillAndReap(holder.pid);
  holder.pid = 0;
}

}  // namespace podlimits::kubelet
