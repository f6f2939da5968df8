// The OCI runtime spec (runtime-spec 1.0.2, as crun 1.8 and runc 1.1 read it) as a struct: the
// container's config.json is built in memory by small options (spec_opts.h), each one concern,
// and written once by SerializeSpec. Only what podlimits sets is modelled; an unset optional
// field is left out of the JSON, so the runtime applies its own default.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace podlimits::cri {

// One rlimit as the kernel takes it ("RLIMIT_NOFILE"; RLIM_INFINITY is UINT64_MAX).
struct Rlimit {
  std::string type;
  std::uint64_t soft = 0;
  std::uint64_t hard = 0;
  bool operator==(const Rlimit&) const = default;
};

struct SpecUser {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::vector<std::uint32_t> additional_gids;
};

struct SpecCapabilities {
  std::vector<std::string> bounding, effective, permitted, inheritable, ambient;
};

struct SpecProcess {
  bool terminal = false;
  SpecUser user;
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::string cwd = "/";
  std::optional<SpecCapabilities> capabilities;
  std::vector<Rlimit> rlimits;
  bool no_new_privileges = false;
  std::optional<std::string> apparmor_profile;
  std::optional<std::string> selinux_label;
};

struct SpecRoot {
  std::string path;
  bool readonly = false;
};

struct SpecMount {
  std::string destination;
  std::string type;
  std::string source;
  std::vector<std::string> options;
};

// A namespace the container gets: a new one when `path` is empty, else the one at `path`
// (/proc/<pid>/ns/net of the pod's sandbox, say) is joined.
struct SpecNamespace {
  std::string type;  // "pid", "network", "mount", "ipc", "uts", "user", "cgroup"
  std::string path;
};

struct SpecSeccompArg {
  std::uint32_t index = 0;
  std::uint64_t value = 0;
  std::uint64_t value_two = 0;
  std::string op;  // "SCMP_CMP_EQ", ...
};

struct SpecSeccompSyscall {
  std::vector<std::string> names;
  std::string action;  // "SCMP_ACT_ALLOW", ...
  std::optional<std::uint32_t> errno_ret;
  std::vector<SpecSeccompArg> args;
};

struct SpecSeccomp {
  std::string default_action;
  std::optional<std::uint32_t> default_errno_ret;
  std::vector<std::string> architectures;
  std::vector<std::string> flags;
  std::vector<SpecSeccompSyscall> syscalls;
};

struct SpecLinux {
  std::vector<SpecNamespace> namespaces;
  std::string cgroups_path;
  // linux.resources.unified: cgroup v2 files and their values ("memory.max": "1048576").
  std::map<std::string, std::string> unified;
  std::map<std::string, std::string> sysctl;
  std::optional<SpecSeccomp> seccomp;
  std::vector<std::string> masked_paths;
  std::vector<std::string> readonly_paths;
  std::string mount_label;
  std::optional<std::string> rootfs_propagation;
};

struct Spec {
  std::string oci_version = "1.0.2";
  SpecProcess process;
  SpecRoot root;
  std::optional<std::string> hostname;
  std::vector<SpecMount> mounts;
  SpecLinux linux;
  std::map<std::string, std::string> annotations;

  // The namespace of `type`, or nullptr when the container shares the runtime's.
  SpecNamespace* FindNamespace(std::string_view type);
};

// config.json, indented as runc's `spec` writes it.
std::string SerializeSpec(const Spec& spec);

}  // namespace podlimits::cri
