#include "kubelet/podworker/container_lifecycle.h"

#include "cri/oci_capabilities.h"
#include "cri/oci_process_user.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "base/error.h"
#include "cri/console_socket.h"
#include "image/overlay.h"

namespace podlimits::kubelet {
namespace {

namespace fs = std::filesystem;

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

Result<void> WriteFile(const fs::path& file, const std::string& text) {
  int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return SystemError("open", file, errno);
  std::string_view rest = text;
  while (!rest.empty()) {
    ssize_t n = write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      return SystemError("write", file, e);
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  if (close(fd) != 0) return SystemError("close", file, errno);
  return {};
}

std::string LimitText(std::uint64_t v) {
  return v == ~std::uint64_t{0} ? std::string("unlimited") : std::to_string(v);
}

}  // namespace

Result<ContainerInstance> CreateContainer(const ContainerContext& ctx, const PodPlan& pod,
                                          const ContainerPlan& plan, const image::Image& image,
                                          EventRecorder& events, pid_t pid_namespace_of) {
  ContainerInstance inst;
  inst.name = plan.container.name;
  inst.id = plan.id;
  inst.dir = pod.pod_dir / plan.container.name;
  // After the bundle exists: what was made goes.
  auto fail = [&](Error error) -> std::unexpected<Error> {
    RemoveContainer(ctx, inst);
    return std::unexpected(std::move(error));
  };

  if (auto v = cri::VerifyRunAsNonRoot(pod.pod, plan.container, image.config); !v) {
    return std::unexpected(std::move(v.error()).Because(kCreateContainerConfigError));
  }
  // The seccomp filter depends on the container's final capabilities (profile rules include or
  // exclude system calls by capability).
  auto caps = cri::ContainerCapabilities(plan.container, ctx.host_capabilities);
  if (!caps) return std::unexpected(std::move(caps.error()));
  auto seccomp = cri::ContainerSeccomp(pod.pod, plan.container, ctx.seccomp, *caps);
  if (!seccomp) {
    return std::unexpected(std::move(seccomp.error())
                               .Wrap("failed to generate seccomp spec opts")
                               .Because(kCreateContainerError));
  }
  EnvContext env_context = ctx.env;
  env_context.pod = &pod.pod;
  if (env_context.node_name.empty()) env_context.node_name = cri::NodeName();
  auto env = MakeEnvironmentVariables(env_context, plan.container);
  if (!env) return std::unexpected(std::move(env.error()).Because(kCreateContainerConfigError));
  for (auto& warning : env->warnings) events.Record(std::move(warning));
  std::vector<cri::SpecMount> volume_mounts;
  if (ctx.volumes != nullptr && !plan.container.volume_mounts.empty()) {
    auto mounts = ctx.volumes->ContainerMounts(plan.container, env->env);
    if (!mounts) {
      return std::unexpected(std::move(mounts.error()).Because(kCreateContainerConfigError));
    }
    volume_mounts = std::move(*mounts);
  }
  std::error_code ec;
  fs::create_directories(inst.dir, ec);
  if (ec) return fail(Error{"mkdir", inst.dir, ec.value()});
  // The kubelet's termination message file: writable by whatever user the container runs as.
  if (!plan.container.termination_message_path.empty()) {
    inst.termination_log = inst.dir / "termination-log";
    int fd = open(inst.termination_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return fail(Error{"create", inst.termination_log, errno});
    const bool chmodded = fchmod(fd, 0666) == 0;
    const int e = errno;
    close(fd);
    if (!chmodded) return fail(Error{"chmod", inst.termination_log, e});
    volume_mounts.push_back({plan.container.termination_message_path, "bind",
                             inst.termination_log.string(), {"rbind", "rprivate", "rw"}});
  }
  // After the container's own mounts, which win over these paths.
  for (auto& m : PodEtcFileMounts(pod.pod_dir, plan.container, volume_mounts)) {
    volume_mounts.push_back(std::move(m));
  }
  auto rootfs = ctx.snapshotter->Prepare(image.rootfs, inst.dir);
  if (!rootfs) return fail(rootfs.error());
  inst.rootfs_mounted = true;

  cri::ContainerSpecInput in;
  in.pod = &pod.pod;
  in.container = &plan.container;
  in.image = image.config;
  in.rootfs = *rootfs;
  in.cgroups_path = (ctx.pod_cgroup / plan.id).string();
  in.rlimits = plan.rlimits;
  in.host_capabilities = ctx.host_capabilities;
  in.sandbox_pid = ctx.sandbox_pid;
  in.pid_namespace_of = pid_namespace_of;
  in.volume_mounts = std::move(volume_mounts);
  in.resource_files = plan.resource_files;
  in.env = std::move(env->env);
  in.hostname = pod.hostnames.kernel;
  in.apparmor_profile = plan.apparmor_profile;
  inst.seccomp_wanted = seccomp->has_value();
  in.seccomp = std::move(*seccomp);
  auto spec = cri::RenderOciSpec(in);
  if (!spec) return fail(spec.error());
  if (auto w = WriteFile(inst.dir / "config.json", *spec); !w) return fail(w.error());

  int out[2] = {-1, -1}, err[2] = {-1, -1}, stdin_pipe[2] = {-1, -1};
  cri::ContainerStdio stdio;
  std::optional<cri::ConsoleSocket> console;
  if (plan.container.tty) {
    // The runtime makes the terminal and sends its master back: the container's stdout and
    // stderr are its output, one stream.
    auto socket = cri::ConsoleSocket::Listen(pod.pod_dir / ("tty-" + inst.id.substr(0, 12)));
    if (!socket) return fail(socket.error());
    console.emplace(std::move(*socket));
    stdio.console_socket = console->path();
  } else {
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
      int e = errno;
      CloseFd(out[0]), CloseFd(out[1]);
      return fail(Error{"pipe", {}, e, fmt::format("for container \"{}\"", inst.name)});
    }
    inst.stdout_fd = out[0];
    inst.stderr_fd = err[0];
    fcntl(inst.stdout_fd, F_SETFL, O_NONBLOCK);
    fcntl(inst.stderr_fd, F_SETFL, O_NONBLOCK);
    stdio.stdout_fd = out[1];
    stdio.stderr_fd = err[1];
    // stdin: true: a pipe whose write end the node keeps for `kubectl attach -i`; the
    // process waits on it (no end of file) until an attach sends input, or stdinOnce ends it.
    if (plan.container.stdin) {
      if (pipe2(stdin_pipe, O_CLOEXEC) != 0) {
        int e = errno;
        CloseFd(out[1]), CloseFd(err[1]);
        return fail(Error{"pipe", {}, e, fmt::format("for the stdin of container \"{}\"", inst.name)});
      }
      stdio.stdin_fd = stdin_pipe[0];
      inst.input = std::make_shared<ContainerInput>(UniqueFd(stdin_pipe[1]), false,
                                                    plan.container.stdin_once);
    }
  }
  bool refused = false;
  auto pid = ctx.runtime->Create(inst.id, inst.dir, stdio, &refused);
  // The container process holds its own copies now; ours would keep the pipes open forever.
  CloseFd(out[1]);
  CloseFd(err[1]);
  CloseFd(stdin_pipe[0]);
  if (!pid) {
    if (refused) pid.error().Because(kStartErrorReason);
    return fail(std::move(pid.error()));
  }
  inst.created = true;
  inst.pid = *pid;
  if (console) {
    auto master = console->ReceiveMaster();
    if (!master) return fail(std::move(master.error().Wrap(fmt::format("container \"{}\"", inst.name))));
    inst.stdout_fd = master->Release();
    if (plan.container.stdin) {
      inst.input = std::make_shared<ContainerInput>(
          UniqueFd(fcntl(inst.stdout_fd, F_DUPFD_CLOEXEC, 3)), true, plan.container.stdin_once);
    }
  }

  // Verify before the workload runs: a limit the runtime lost is fixed now, and said so.
  auto corrected = cri::CorrectAndReadProcessLimits(inst.pid, plan.rlimits);
  if (!corrected) {
    return fail(std::move(corrected.error().Wrap(fmt::format("container \"{}\"", inst.name))));
  }
  for (const auto& c : corrected->corrections) {
    events.Eventf(
        EventType::kWarning, "RlimitCorrected",
        fmt::format("Container {}: the OCI runtime left {} at {}/{} instead of {}/{}; "
                    "set with prlimit before start",
                    inst.name, c.wanted.type, LimitText(c.found_soft), LimitText(c.found_hard),
                    LimitText(c.wanted.soft), LimitText(c.wanted.hard)));
  }
  inst.limits = std::move(corrected->limits);
  // crun installs the filter before `create` returns; runc only right before execve, after
  // `start` (StartContainer checks again then).
  auto mode = cri::ReadSeccompMode(inst.pid);
  if (!mode) return fail(std::move(mode.error().Wrap(fmt::format("container \"{}\"", inst.name))));
  inst.seccomp_mode = *mode;
  return inst;
}

Result<void> StartContainer(const ContainerContext& ctx, ContainerInstance& instance) {
  bool refused = false;
  auto started = ctx.runtime->Start(instance.id, &refused);
  if (!started) {
    if (refused) started.error().Because(kStartErrorReason);
    return std::unexpected(std::move(started.error()));
  }
  // A filter the spec asks for must be in place: read back as the rlimits are. Waits at most a
  // second for a runtime that installs it after start, just before execve.
  // A process gone before it could be read has run: runtimes fail `start` when the filter does
  // not load, so it ran filtered.
  bool gone = false;
  for (int i = 0; instance.seccomp_wanted && instance.seccomp_mode != 2 && i < 200; ++i) {
    if (i > 0) usleep(5000);
    auto mode = cri::ReadSeccompMode(instance.pid);
    if (!mode) {
      gone = true;
      break;
    }
    instance.seccomp_mode = *mode;
  }
  if (instance.seccomp_wanted && instance.seccomp_mode != 2 && !gone) {
    return Failure(fmt::format("container \"{}\": the OCI runtime started it without its seccomp "
                               "filter (/proc/{}/status Seccomp: {})",
                               instance.name, instance.pid, instance.seccomp_mode));
  }
  return {};
}

std::vector<std::string> RemoveContainer(const ContainerContext& ctx, ContainerInstance& inst) {
  std::vector<std::string> errors;
  if (inst.created && ctx.kill_cgroup) {
    // Through the cgroup, before `delete`: strays of a hostPID container keep its cgroup busy,
    // and the runtime's delete would spin on rmdir until they are gone.
    if (auto k = ctx.kill_cgroup(ctx.pod_cgroup / inst.id); !k)
      errors.push_back(k.error().Message());
  }
  if (inst.created) {
    if (auto d = ctx.runtime->Delete(inst.id); !d) errors.push_back(d.error().Message());
    inst.created = false;
  }
  CloseFd(inst.stdout_fd);
  CloseFd(inst.stderr_fd);
  if (inst.input) {
    inst.input->Close();
    inst.input.reset();
  }
  if (!inst.dir.empty()) {
    if (auto r = ctx.snapshotter->Release(inst.dir); !r) {
      errors.push_back(r.error().Message());
      return errors;  // never delete a tree that may still be mounted
    }
    inst.rootfs_mounted = false;
    std::error_code ec;
    fs::remove_all(inst.dir, ec);
    if (ec) errors.push_back(fmt::format("remove \"{}\": {}", inst.dir.string(), ec.message()));
  }
  return errors;
}

}  // namespace podlimits::kubelet
