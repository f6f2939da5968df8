#include "cri/apparmor.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "api/apparmor.h"
#include "base/child_process.h"
#include "base/fs.h"

namespace podlimits::cri {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kRuntimeDefault = "RuntimeDefault";
constexpr std::string_view kLocalhost = "Localhost";
constexpr std::string_view kUnconfined = "Unconfined";

bool Exists(const fs::path& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0;
}

bool Executable(const fs::path& p) { return access(p.c_str(), X_OK) == 0; }

std::optional<api::AppArmorProfile> AnnotationProfile(const api::Pod& pod,
                                                      const std::string& container) {
  auto it = pod.metadata.annotations.find(std::string(api::kAppArmorAnnotationPrefix) + container);
  if (it == pod.metadata.annotations.end()) return std::nullopt;
  return api::AppArmorFieldForAnnotation(it->second);
}

bool SetsProfile(const std::optional<api::AppArmorProfile>& p) {
  return p && p->type != kUnconfined;
}

}  // namespace

AppArmorHost ProbeAppArmor(const fs::path& fs_root) {
  AppArmorHost host;
  const fs::path securityfs = fs_root / "sys/kernel/security/apparmor";
  auto enabled = ReadSmallFile(fs_root / "sys/module/apparmor/parameters/enabled", 64);
  host.kernel_enabled = Exists(securityfs) && enabled && enabled->size() > 1 && (*enabled)[0] == 'Y';
  if (!host.kernel_enabled) return host;
  // containerd looks only at /sbin; a merged-/usr Debian has it in both.
  for (const char* p : {"sbin/apparmor_parser", "usr/sbin/apparmor_parser"}) {
    if (Executable(fs_root / p)) {
      host.parser = fs_root / p;
      break;
    }
  }
  host.profiles_file = securityfs / "profiles";
  if (auto text = ReadSmallFile(host.profiles_file, 16 << 20)) {
    host.loaded = ParseLoadedProfiles(*text);
  }
  return host;
}

std::set<std::string> ParseLoadedProfiles(std::string_view text) {
  std::set<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    // "name (mode)": the name may contain spaces, the mode is the last parenthesis.
    std::size_t mode = line.rfind(" (");
    if (mode == std::string_view::npos) continue;
    out.emplace(line.substr(0, mode));
  }
  return out;
}

std::optional<api::AppArmorProfile> ContainerAppArmorField(const api::Pod& pod,
                                                           const api::Container& container) {
  if (container.security_context && container.security_context->app_armor_profile) {
    return container.security_context->app_armor_profile;
  }
  // Static pods may not have had their annotations copied to fields: annotations come before
  // the pod's profile, as in the kubelet.
  if (auto annotated = AnnotationProfile(pod, container.name)) return annotated;
  if (pod.spec.security_context && pod.spec.security_context->app_armor_profile) {
    return pod.spec.security_context->app_armor_profile;
  }
  return std::nullopt;
}

bool PodRequiresAppArmor(const api::Pod& pod) {
  if (pod.spec.security_context && SetsProfile(pod.spec.security_context->app_armor_profile)) {
    return true;
  }
  bool required = false;
  api::VisitContainers(pod.spec, [&](const api::Container& c) {
    if (c.security_context && SetsProfile(c.security_context->app_armor_profile)) required = true;
  });
  if (required) return true;
  for (const auto& [key, value] : pod.metadata.annotations) {
    if (key.starts_with(api::kAppArmorAnnotationPrefix) && value != "unconfined") return true;
  }
  return false;
}

std::optional<std::string> AppArmorAdmissionProblem(const api::Pod& pod, const AppArmorHost& host) {
  if (!PodRequiresAppArmor(pod)) return std::nullopt;
  if (!host.kernel_enabled) return "AppArmor is not enabled on the host";
  std::optional<std::string> problem;
  api::VisitContainers(pod.spec, [&](const api::Container& c) {
    if (problem) return;
    auto profile = ContainerAppArmorField(pod, c);
    if (!profile) return;
    if (profile->type == kRuntimeDefault && host.parser.empty()) {
      problem = fmt::format(
          "container \"{}\" asks for the runtime's default profile, which cannot be loaded: "
          "apparmor_parser is not installed (/sbin/apparmor_parser, Debian's apparmor package)",
          c.name);
    } else if (profile->type == kLocalhost) {
      const std::string name = profile->localhost_profile.value_or("");
      if (!host.loaded.contains(name)) {
        problem = fmt::format("profile {} is not loaded", field::GoQuote(name));
      }
    }
  });
  return problem;
}

std::optional<std::string> ContainerAppArmorProfile(const api::Pod& pod,
                                                    const api::Container& container,
                                                    const AppArmorHost& host) {
  // Admission refused whatever a node without AppArmor cannot apply; what is left runs as on
  // containerd there: unconfined.
  if (!host.CanLoadProfiles()) {
    auto profile = ContainerAppArmorField(pod, container);
    if (profile && profile->type == kLocalhost && host.kernel_enabled) {
      return profile->localhost_profile;
    }
    return std::nullopt;
  }
  auto profile = ContainerAppArmorField(pod, container);
  if (!profile) {
    if (container.IsPrivileged()) return std::nullopt;
    return std::string(kDefaultAppArmorProfileName);
  }
  if (profile->type == kRuntimeDefault) return std::string(kDefaultAppArmorProfileName);
  if (profile->type == kLocalhost) return profile->localhost_profile;
  return std::nullopt;
}

std::string DefaultAppArmorProfile(const fs::path& apparmor_dir) {
  std::string out;
  if (Exists(apparmor_dir / "abi/3.0")) out += "abi <abi/3.0>,\n\n";
  if (Exists(apparmor_dir / "tunables/global")) {
    out += "#include <tunables/global>\n\n";
  } else {
    out += "@{PROC}=/proc/\n\n";
  }
  out += fmt::format("profile {} flags=(attach_disconnected,mediate_deleted) {{\n",
                     kDefaultAppArmorProfileName);
  if (Exists(apparmor_dir / "abstractions/base")) out += "  #include <abstractions/base>\n\n";
  out += fmt::format(R"(  # Everything a container normally does; the denials below narrow it.
  network,
  capability,
  file,
  umount,

  # podlimits, crun and runc run unconfined (or under their own profiles) and signal the
  # container's processes; those may signal and trace each other.
  signal (receive) peer=unconfined,
  signal (receive) peer=crun,
  signal (receive) peer=runc,
  signal (send,receive) peer={0},
  ptrace (trace,tracedby,read,readby) peer={0},

  # No mounts from inside, whatever capabilities the container holds.
  deny mount,

  # /proc: nothing directly in it is writable, and below it only /proc/<pid>/... and
  # /proc/sys/kernel/shm* are.
  deny @{{PROC}}/* w,
  deny @{{PROC}}/{{[^1-9/],[^1-9/][^0-9/],[^1-9s/][^0-9y/][^0-9s/],[^1-9/][^0-9/][^0-9/][^0-9/]*}}/** w,
  deny @{{PROC}}/sys/[^k]** w,
  deny @{{PROC}}/sys/kernel/{{?,??,[^s][^h][^m]**}} w,
  deny @{{PROC}}/sysrq-trigger rwklx,
  deny @{{PROC}}/kcore rwklx,

  # /sys: read-only outside the cgroup file system; firmware, powercap and securityfs closed.
  deny /sys/[^f]*/** wklx,
  deny /sys/f[^s]*/** wklx,
  deny /sys/fs/[^c]*/** wklx,
  deny /sys/fs/c[^g]*/** wklx,
  deny /sys/fs/cg[^r]*/** wklx,
  deny /sys/firmware/** rwklx,
  deny /sys/devices/virtual/powercap/** rwklx,
  deny /sys/kernel/security/** rwklx,
}}
)",
                     kDefaultAppArmorProfileName);
  return out;
}

Result<void> EnsureDefaultAppArmorProfile(AppArmorHost& host, const fs::path& dir) {
  const std::string name(kDefaultAppArmorProfileName);
  if (host.loaded.contains(name)) return {};
  if (host.parser.empty()) {
    return Failure("load AppArmor profile", name, "apparmor_parser is not installed");
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return SystemError("mkdir", dir, ec.value());
  const fs::path file = dir / name;
  if (auto w = ReplaceFile(file, DefaultAppArmorProfile()); !w) return w;
  ChildCommand cmd;
  cmd.argv = {host.parser.string(), "-Kr", file.string()};
  cmd.timeout = std::chrono::seconds(60);
  auto run = RunChild(cmd);
  if (!run) return std::unexpected(std::move(run.error()));
  if (!run->Succeeded()) {
    std::string err = run->err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    return Failure(fmt::format("{} -Kr", host.parser.string()), file,
                   fmt::format("{}: {}", run->Describe(cmd.timeout), err));
  }
  host.loaded.insert(name);
  return {};
}

}  // namespace podlimits::cri
