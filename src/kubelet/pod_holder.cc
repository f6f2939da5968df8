#include "kubelet/pod_holder.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <cerrno>
#include <fstream>

#include "base/child_reaper.h"
#include "base/fs.h"
#include "cri/sandbox_spec.h"

namespace podlimits::kubelet {

namespace fs = std::filesystem;

std::expected<PodHolder, Error> StartPodHolder(const ContainerContext& ctx, const PodPlan& plan,
                                               const fs::path& holder_binary) {
  PodHolder holder;
  holder.id = plan.sandbox_id;
  holder.bundle = plan.pod_dir / kSandboxName;
  auto fail = [&](Error error) -> std::unexpected<Error> {
    (void)StopPodHolder(ctx, holder);
    (void)RemoveTree(holder.bundle);
    return std::unexpected(std::move(error));
  };
  const fs::path rootfs = holder.bundle / "rootfs";
  std::error_code ec;
  fs::create_directories(rootfs / "dev", ec);
  if (ec) return fail(Error{"mkdir", rootfs, ec.value()});
  // The bind mount's target, made here: the root is mounted read-only.
  const fs::path target = rootfs / std::string(cri::kHolderMountPoint).substr(1);
  if (auto w = WriteFileAtomically(target, ""); !w) return fail(w.error());

  cri::SandboxSpecInput in;
  in.pod = &plan.pod;
  in.rootfs = rootfs;
  in.holder_binary = holder_binary;
  in.cgroups_path = (ctx.pod_cgroup / holder.id).string();
  auto spec = cri::BuildSandboxSpec(in);
  if (!spec) return fail(spec.error());
  if (auto w = WriteFileAtomically(holder.bundle / "config.json", cri::SerializeSpec(*spec)); !w) {
    return fail(w.error());
  }
  auto pid = ctx.runtime->Create(holder.id, holder.bundle, cri::ContainerStdio{});
  if (!pid) return fail(pid.error());
  holder.created = true;
  holder.pid = *pid;
  if (auto status = ChildReaper::Process().Adopt(holder.pid)) {
    holder.pid = 0;
    return fail(Failure(fmt::format("the pod sandbox's holder (pid {}) exited right after create",
                                    *pid)).error());
  }
  if (auto started = ctx.runtime->Start(holder.id); !started) return fail(started.error());
  return holder;
}

std::vector<std::string> StopPodHolder(const ContainerContext& ctx, PodHolder& holder) {
  std::vector<std::string> errors;
  if (holder.created) {
    if (ctx.kill_cgroup) {
      if (auto k = ctx.kill_cgroup(ctx.pod_cgroup / holder.id); !k) {
        errors.push_back(k.error().Message());
      }
    }
    (void)ctx.runtime->Kill(holder.id, SIGKILL);
    if (holder.pid > 0) ::kill(holder.pid, SIGKILL);
    if (auto d = ctx.runtime->Delete(holder.id); !d) {
      errors.push_back(d.error().Wrap("delete the pod sandbox's holder").Message());
    } else {
      holder.created = false;
    }
  }
  if (holder.pid > 0) {
    // Our child (we are its subreaper): SIGKILLed above, so this wait is short.
    int status = 0;
    while (waitpid(holder.pid, &status, 0) < 0 && errno == EINTR) {
    }
    ChildReaper::Process().Release(holder.pid);
    holder.pid = 0;
  }
  return errors;
}

}  // namespace podlimits::kubelet
