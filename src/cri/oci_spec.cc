#include "cri/oci_spec.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <unistd.h>

#include <climits>
#include <initializer_list>
#include <string_view>

#include "base/error.h"
#include "cri/oci_capabilities.h"
#include "cri/oci_process.h"
#include "cri/oci_process_user.h"
#include "fmt/format.h"

namespace podlimits::cri {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

// containerd's defaults (pkg/oci/spec.go), the paths a container must not read or write even as
// root; a privileged container gets neither list, as with every CRI runtime.
constexpr std::string_view kMaskedPaths[] = {
    "/proc/acpi",
    "/proc/asound",
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/timer_list",
    "/proc/timer_stats",
    "/proc/sched_debug",
    "/proc/scsi",
    "/sys/firmware",
    "/sys/devices/virtual/powercap",
};
constexpr std::string_view kReadonlyPaths[] = {
    "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

void Str(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

template <typename Range>
void StrArray(Writer& w, std::string_view key, const Range& items) {
  Str(w, key);
  w.StartArray();
  for (const auto& s : items) Str(w, s);
  w.EndArray();
}

struct Mount {
  std::string_view destination, type, source;
  std::vector<std::string_view> options;
};

void WriteMount(Writer& w, const Mount& m) {
  w.StartObject();
  Str(w, "destination");
  Str(w, m.destination);
  Str(w, "type");
  Str(w, m.type);
  Str(w, "source");
  Str(w, m.source);
  StrArray(w, "options", m.options);
  w.EndObject();
}

struct Context {
  const api::Pod& pod;
  const api::Container& container;
  bool privileged = false;
  bool writable_cgroup = false;
};

std::vector<Mount> Mounts(const Context& ctx) {
  const auto& spec = ctx.pod.spec;
  std::vector<Mount> mounts = {
      {"/proc", "proc", "proc", {"nosuid", "noexec", "nodev"}},
      {"/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"}},
      {"/dev/pts",
       "devpts",
       "devpts",
       {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}},
  };
  if (spec.host_ipc) {
    // hostIPC shares POSIX shared memory with the host too: it lives in the host's /dev/shm
    // (containerd bind-mounts it the same way).
    mounts.push_back(
        {"/dev/shm", "bind", "/dev/shm", {"rbind", "nosuid", "nodev", "noexec", "rw"}});
  } else {
    mounts.push_back(
        {"/dev/shm", "tmpfs", "shm", {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}});
  }
  mounts.push_back({"/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"}});
  // A fresh sysfs also with hostNetwork: the kernel only refuses it inside a user namespace
  // that does not own the network namespace, and podlimits uses none. A bind of the host's
  // /sys (what rootless runtimes fall back to) would carry the host's submounts, /sys/fs/cgroup
  // among them, where `ro` on the top mount does not reach.
  mounts.push_back(
      {"/sys", "sysfs", "sysfs", {"nosuid", "noexec", "nodev", ctx.privileged ? "rw" : "ro"}});
  // KEP-5474: only mountMode Writable makes the cgroup mount writable, also for a privileged
  // container (containerd's WithPrivileged would make it rw). The runtime mounts the
  // container's cgroup namespace root here on a v2 host.
  mounts.push_back({"/sys/fs/cgroup",
                    "cgroup",
                    "cgroup",
                    {"nosuid", "noexec", "nodev", "relatime", ctx.writable_cgroup ? "rw" : "ro"}});
  return mounts;
}

void WriteNamespaces(Writer& w, const api::PodSpec& spec) {
  Str(w, "namespaces");
  w.StartArray();
  auto ns = [&](std::string_view type) {
    w.StartObject();
    Str(w, "type");
    Str(w, type);
    w.EndObject();
  };
  if (!spec.host_pid) ns("pid");
  if (!spec.host_ipc) ns("ipc");
  // With hostNetwork the pod also has the node's hostname (containerd shares the host's UTS
  // namespace then).
  if (!spec.host_network) ns("uts");
  ns("mount");
  if (!spec.host_network) ns("network");
  // Always: the container sees its own cgroup as "/", also when privileged. Without one, a
  // runtime's fresh cgroup2 mount from the init namespace would reset the host's nsdelegate.
  ns("cgroup");
  w.EndArray();
}

// The node's hostname, for HOSTNAME in a hostNetwork pod (containerd uses os.Hostname()).
std::string NodeHostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

}  // namespace

Result<std::string> RenderOciSpec(const ContainerSpecInput& input) {
  if (input.pod == nullptr || input.container == nullptr) {
    return Failure("render OCI spec: no pod or no container given");
  }
  const api::Pod& pod = *input.pod;
  const api::Container& c = *input.container;
  const std::string field = ContainerFieldPath(c);
  if (!input.rootfs.is_absolute()) {
    return Failure(
        fmt::format("{}: rootfs \"{}\" is not an absolute path", field, input.rootfs.string()));
  }
  if (!input.cgroups_path.starts_with('/')) {
    return Failure(
        fmt::format("{}: cgroups path \"{}\" is not absolute", field, input.cgroups_path));
  }

  const auto& sc = c.security_context;
  Context ctx{pod, c};
  ctx.privileged = sc && sc->privileged.value_or(false);
  ctx.writable_cgroup = sc && sc->cgroup_options && sc->cgroup_options->mount_mode == "Writable";
  const bool no_new_privileges = !ctx.privileged && sc && sc->allow_privilege_escalation == false;
  const bool readonly_root = sc && sc->read_only_root_filesystem.value_or(false);

  const EnvList container_env = ContainerEnv(c);
  auto args = ProcessArgs(c, input.image, container_env);
  if (!args) return std::unexpected(args.error());
  auto cwd = ProcessCwd(c, input.image);
  if (!cwd) return std::unexpected(cwd.error());
  auto user = ResolveProcessUser(pod, c, input.image, input.rootfs);
  if (!user) return std::unexpected(user.error());
  auto caps = ContainerCapabilities(c, input.host_capabilities);
  if (!caps) return std::unexpected(caps.error());
  const std::string hostname = pod.spec.host_network ? NodeHostname() : pod.metadata.name;
  const auto env = ProcessEnv(input.image, container_env, hostname);

  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  Str(w, "ociVersion");
  Str(w, "1.0.2");

  Str(w, "process");
  w.StartObject();
  Str(w, "terminal");
  w.Bool(false);
  Str(w, "user");
  w.StartObject();
  Str(w, "uid");
  w.Uint(user->uid);
  Str(w, "gid");
  w.Uint(user->gid);
  Str(w, "additionalGids");
  w.StartArray();
  for (auto gid : user->additional_gids) w.Uint(gid);
  w.EndArray();
  w.EndObject();
  StrArray(w, "args", *args);
  StrArray(w, "env", env);
  Str(w, "cwd");
  Str(w, *cwd);
  Str(w, "capabilities");
  w.StartObject();
  // The same set for root and other users, as containerd writes it; inheritable and ambient
  // stay empty (CVE-2022-24769), so a non-root process holds none after execve.
  StrArray(w, "bounding", *caps);
  StrArray(w, "effective", *caps);
  StrArray(w, "permitted", *caps);
  StrArray(w, "inheritable", std::initializer_list<std::string_view>{});
  StrArray(w, "ambient", std::initializer_list<std::string_view>{});
  w.EndObject();
  Str(w, "rlimits");
  w.StartArray();
  for (const auto& r : input.rlimits) {
    w.StartObject();
    Str(w, "type");
    Str(w, r.type);
    // Uint64: RLIM_INFINITY must reach the runtime as 18446744073709551615 exactly.
    Str(w, "soft");
    w.Uint64(r.soft);
    Str(w, "hard");
    w.Uint64(r.hard);
    w.EndObject();
  }
  w.EndArray();
  Str(w, "noNewPrivileges");
  w.Bool(no_new_privileges);
  w.EndObject();  // process

  Str(w, "root");
  w.StartObject();
  Str(w, "path");
  Str(w, input.rootfs.string());
  Str(w, "readonly");
  w.Bool(readonly_root);
  w.EndObject();

  // A hostname needs a UTS namespace of its own; runc refuses one without.
  if (!pod.spec.host_network) {
    Str(w, "hostname");
    Str(w, pod.metadata.name);
  }

  Str(w, "mounts");
  w.StartArray();
  for (const auto& m : Mounts(ctx)) WriteMount(w, m);
  w.EndArray();

  Str(w, "linux");
  w.StartObject();
  WriteNamespaces(w, pod.spec);
  Str(w, "cgroupsPath");
  Str(w, input.cgroups_path);
  if (!ctx.privileged) {
    StrArray(w, "maskedPaths", kMaskedPaths);
    StrArray(w, "readonlyPaths", kReadonlyPaths);
  }
  w.EndObject();  // linux

  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace podlimits::cri
