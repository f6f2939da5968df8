#include "cri/seccomp_profile.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <limits>

#include "base/fs.h"
#include "base/unique_fd.h"

namespace podlimits::cri {
namespace {

namespace fs = std::filesystem;
using rapidjson::Value;

constexpr std::size_t kMaxProfileSize = 1 << 20;

constexpr std::array<std::string_view, 9> kActions = {
    "SCMP_ACT_KILL",  "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
    "SCMP_ACT_TRAP",  "SCMP_ACT_ERRNO",        "SCMP_ACT_TRACE",
    "SCMP_ACT_ALLOW", "SCMP_ACT_LOG",          "SCMP_ACT_NOTIFY"};

constexpr std::array<std::string_view, 7> kOperators = {
    "SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",        "SCMP_CMP_EQ",
    "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ"};

// uname's machine to Go's GOARCH (the names profiles use) and libseccomp's architecture.
struct ArchNames {
  std::string_view machine, go_arch, scmp_arch;
};
constexpr std::array<ArchNames, 8> kArches = {{
    {"x86_64", "amd64", "SCMP_ARCH_X86_64"},
    {"aarch64", "arm64", "SCMP_ARCH_AARCH64"},
    {"i686", "386", "SCMP_ARCH_X86"},
    {"armv7l", "arm", "SCMP_ARCH_ARM"},
    {"ppc64le", "ppc64le", "SCMP_ARCH_PPC64LE"},
    {"s390x", "s390x", "SCMP_ARCH_S390X"},
    {"riscv64", "riscv64", "SCMP_ARCH_RISCV64"},
    {"mips64", "mips64", "SCMP_ARCH_MIPS64"},
}};

bool Contains(const std::vector<std::string>& list, std::string_view v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

// "6.1.0-56-amd64" -> {6, 1}; "4.8" -> {4, 8}.
std::pair<int, int> KernelVersion(std::string_view release) {
  int major = 0, minor = 0;
  std::size_t i = 0;
  while (i < release.size() && release[i] >= '0' && release[i] <= '9') {
    major = major * 10 + (release[i++] - '0');
  }
  if (i < release.size() && release[i] == '.') ++i;
  while (i < release.size() && release[i] >= '0' && release[i] <= '9') {
    minor = minor * 10 + (release[i++] - '0');
  }
  return {major, minor};
}

class ProfileReader {
 public:
  ProfileReader(std::string_view source, const SeccompTarget& target)
      : source_(source), target_(target) {}

  Result<SpecSeccomp> Read(const Value& root) {
    if (!root.IsObject()) return Bad("", "a profile is a JSON object");
    SpecSeccomp out;
    auto action = Action(root, "defaultAction", "defaultAction", true);
    if (!action) return std::unexpected(action.error());
    out.default_action = *action;
    auto errno_ret = OptionalUint32(root, "defaultErrnoRet", "defaultErrnoRet");
    if (!errno_ret) return std::unexpected(errno_ret.error());
    out.default_errno_ret = *errno_ret;

    if (auto m = root.FindMember("archMap"); m != root.MemberEnd() && !m->value.IsNull()) {
      if (!m->value.IsArray()) return Bad("archMap", "must be a list");
      for (rapidjson::SizeType i = 0; i < m->value.Size(); ++i) {
        const Value& entry = m->value[i];
        const std::string where = fmt::format("archMap[{}]", i);
        auto arch = Strings(entry, "architecture", where, /*single=*/true);
        if (!arch) return std::unexpected(arch.error());
        auto subs = Strings(entry, "subArchitectures", where, false);
        if (!subs) return std::unexpected(subs.error());
        if (arch->empty() || (*arch)[0] != target_.scmp_arch) continue;
        out.architectures.push_back((*arch)[0]);
        out.architectures.insert(out.architectures.end(), subs->begin(), subs->end());
      }
    } else {
      auto arches = Strings(root, "architectures", "", false);
      if (!arches) return std::unexpected(arches.error());
      out.architectures = std::move(*arches);
    }
    auto flags = Strings(root, "flags", "", false);
    if (!flags) return std::unexpected(flags.error());
    out.flags = std::move(*flags);

    auto m = root.FindMember("syscalls");
    if (m == root.MemberEnd() || m->value.IsNull()) return out;
    if (!m->value.IsArray()) return Bad("syscalls", "must be a list");
    for (rapidjson::SizeType i = 0; i < m->value.Size(); ++i) {
      const std::string where = fmt::format("syscalls[{}]", i);
      auto rule = Syscall(m->value[i], where);
      if (!rule) return std::unexpected(rule.error());
      if (*rule) out.syscalls.push_back(std::move(**rule));
    }
    return out;
  }

 private:
  std::unexpected<Error> Bad(std::string_view where, std::string_view what) const {
    return std::unexpected(Failure(fmt::format("seccomp profile \"{}\": {}{}{}", source_, where,
                                               where.empty() ? "" : ": ", what)));
  }

  static std::string Join(std::string_view where, std::string_view key) {
    return where.empty() ? std::string(key) : fmt::format("{}.{}", where, key);
  }

  // A string, or a list of strings; absent or null: empty. `single`: a string only.
  Result<std::vector<std::string>> Strings(const Value& obj, std::string_view key,
                                           std::string_view where, bool single) const {
    std::vector<std::string> out;
    if (!obj.IsObject()) return Bad(where, "must be an object");
    auto m = obj.FindMember(rapidjson::StringRef(key.data(), key.size()));
    if (m == obj.MemberEnd() || m->value.IsNull()) return out;
    if (single) {
      if (!m->value.IsString()) return Bad(Join(where, key), "must be a string");
      out.emplace_back(m->value.GetString(), m->value.GetStringLength());
      return out;
    }
    if (!m->value.IsArray()) return Bad(Join(where, key), "must be a list of strings");
    for (const Value& v : m->value.GetArray()) {
      if (!v.IsString()) return Bad(Join(where, key), "must be a list of strings");
      out.emplace_back(v.GetString(), v.GetStringLength());
    }
    return out;
  }

  Result<std::string> Action(const Value& obj, std::string_view key, std::string_view where,
                             bool required) const {
    auto v = Strings(obj, key, "", true);
    if (!v) return std::unexpected(v.error());
    if (v->empty()) {
      if (required) return Bad(where, "is required");
      return std::string();
    }
    if (std::find(kActions.begin(), kActions.end(), (*v)[0]) == kActions.end()) {
      return Bad(where, fmt::format("unknown action \"{}\"", (*v)[0]));
    }
    return (*v)[0];
  }

  Result<std::optional<std::uint32_t>> OptionalUint32(const Value& obj, std::string_view key,
                                                      std::string_view where) const {
    auto m = obj.FindMember(rapidjson::StringRef(key.data(), key.size()));
    if (m == obj.MemberEnd() || m->value.IsNull()) return std::optional<std::uint32_t>();
    if (!m->value.IsUint()) return Bad(where, "must be an integer from 0 to 4294967295");
    return std::optional<std::uint32_t>(m->value.GetUint());
  }

  Result<std::uint64_t> Uint64(const Value& obj, std::string_view key, std::string_view where,
                               bool required) const {
    auto m = obj.FindMember(rapidjson::StringRef(key.data(), key.size()));
    if (m == obj.MemberEnd() || m->value.IsNull()) {
      if (required) return Bad(Join(where, key), "is required");
      return 0;
    }
    if (!m->value.IsUint64()) return Bad(Join(where, key), "must be a non-negative integer");
    return m->value.GetUint64();
  }

  // Whether the rule's includes hold and its excludes do not, for the target.
  Result<bool> Applies(const Value& rule, std::string_view where) const {
    for (const bool include : {false, true}) {
      const std::string_view key = include ? "includes" : "excludes";
      auto m = rule.FindMember(rapidjson::StringRef(key.data(), key.size()));
      if (m == rule.MemberEnd() || m->value.IsNull()) continue;
      const std::string at = Join(where, key);
      if (!m->value.IsObject()) return Bad(at, "must be an object");
      auto arches = Strings(m->value, "arches", at, false);
      if (!arches) return std::unexpected(arches.error());
      auto caps = Strings(m->value, "caps", at, false);
      if (!caps) return std::unexpected(caps.error());
      auto min_kernel = Strings(m->value, "minKernel", at, true);
      if (!min_kernel) return std::unexpected(min_kernel.error());
      if (include) {
        if (!arches->empty() && !Contains(*arches, target_.go_arch)) return false;
        for (const auto& c : *caps) {
          if (!Contains(target_.capabilities, c)) return false;
        }
        if (!min_kernel->empty() &&
            KernelVersion(target_.kernel_release) < KernelVersion((*min_kernel)[0])) {
          return false;
        }
      } else {
        if (Contains(*arches, target_.go_arch)) return false;
        for (const auto& c : *caps) {
          if (Contains(target_.capabilities, c)) return false;
        }
        if (!min_kernel->empty() &&
            KernelVersion(target_.kernel_release) >= KernelVersion((*min_kernel)[0])) {
          return false;
        }
      }
    }
    return true;
  }

  Result<std::optional<SpecSeccompSyscall>> Syscall(const Value& rule,
                                                    std::string_view where) const {
    if (!rule.IsObject()) return Bad(where, "must be an object");
    auto applies = Applies(rule, where);
    if (!applies) return std::unexpected(applies.error());
    SpecSeccompSyscall out;
    auto names = Strings(rule, "names", where, false);
    if (!names) return std::unexpected(names.error());
    auto name = Strings(rule, "name", where, true);  // the Docker format's older single name
    if (!name) return std::unexpected(name.error());
    out.names = std::move(*names);
    out.names.insert(out.names.end(), name->begin(), name->end());
    if (out.names.empty()) return Bad(where, "names no system call");
    auto action = Action(rule, "action", Join(where, "action"), true);
    if (!action) return std::unexpected(action.error());
    out.action = *action;
    auto errno_ret = OptionalUint32(rule, "errnoRet", Join(where, "errnoRet"));
    if (!errno_ret) return std::unexpected(errno_ret.error());
    out.errno_ret = *errno_ret;
    auto errno_name = Strings(rule, "errno", where, true);
    if (!errno_name) return std::unexpected(errno_name.error());
    if (!errno_name->empty() && !out.errno_ret) {
      return Bad(where, "errno given by name only; set errnoRet to its number");
    }
    if (auto m = rule.FindMember("args"); m != rule.MemberEnd() && !m->value.IsNull()) {
      if (!m->value.IsArray()) return Bad(Join(where, "args"), "must be a list");
      for (rapidjson::SizeType i = 0; i < m->value.Size(); ++i) {
        const Value& a = m->value[i];
        const std::string at = fmt::format("{}.args[{}]", where, i);
        if (!a.IsObject()) return Bad(at, "must be an object");
        SpecSeccompArg arg;
        auto index = Uint64(a, "index", at, true);
        if (!index) return std::unexpected(index.error());
        if (*index > 5) return Bad(Join(at, "index"), "a system call has 6 arguments (0-5)");
        arg.index = static_cast<std::uint32_t>(*index);
        auto value = Uint64(a, "value", at, false);
        if (!value) return std::unexpected(value.error());
        arg.value = *value;
        auto value_two = Uint64(a, "valueTwo", at, false);
        if (!value_two) return std::unexpected(value_two.error());
        arg.value_two = *value_two;
        auto op = Strings(a, "op", at, true);
        if (!op) return std::unexpected(op.error());
        if (op->empty() ||
            std::find(kOperators.begin(), kOperators.end(), (*op)[0]) == kOperators.end()) {
          return Bad(Join(at, "op"),
                     fmt::format("unknown operator \"{}\"", op->empty() ? "" : (*op)[0]));
        }
        arg.op = (*op)[0];
        out.args.push_back(std::move(arg));
      }
    }
    if (!*applies) return std::optional<SpecSeccompSyscall>();
    return std::optional<SpecSeccompSyscall>(std::move(out));
  }

  std::string_view source_;
  const SeccompTarget& target_;
};

// Reads a profile below `root` (relative `rel`), refusing symlinks and any escape.
Result<std::string> ReadProfileBeneath(const fs::path& root, std::string_view rel) {
  const std::string display = (root / rel).string();
  UniqueFd dir(open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return SystemError("open seccomp profile root", root.string(), errno);
  auto fd = OpenBeneath(dir.get(), rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!fd) {
    return SystemError("open seccomp profile", display, fd.error(),
                       fd.error() == EXDEV || fd.error() == ELOOP
                           ? "it must be a file below the node's seccomp profile root, reached "
                             "without symlinks"
                           : "");
  }
  struct stat st {};
  if (fstat(fd->get(), &st) != 0) return SystemError("stat seccomp profile", display, errno);
  if (!S_ISREG(st.st_mode)) return Failure("open seccomp profile", display, "not a regular file");
  if (static_cast<std::size_t>(st.st_size) > kMaxProfileSize) {
    return Failure("read seccomp profile", display,
                   fmt::format("larger than {} bytes", kMaxProfileSize));
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = pread(fd->get(), text.data() + done, text.size() - done,
                      static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SystemError("read seccomp profile", display, errno);
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  return text;
}

}  // namespace

SeccompTarget NativeSeccompTarget(std::vector<std::string> capabilities) {
  SeccompTarget t;
  struct utsname u {};
  uname(&u);
  t.kernel_release = u.release;
  for (const ArchNames& a : kArches) {
    if (a.machine == u.machine) {
      t.go_arch = a.go_arch;
      t.scmp_arch = a.scmp_arch;
    }
  }
  t.capabilities = std::move(capabilities);
  return t;
}

Result<SpecSeccomp> ConvertSeccompProfile(std::string_view json, std::string_view source,
                                          const SeccompTarget& target) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseStopWhenDoneFlag>(json.data(), json.size());
  if (doc.HasParseError()) {
    return Failure(fmt::format("seccomp profile \"{}\": invalid JSON at offset {}: {}", source,
                               doc.GetErrorOffset(), rapidjson::GetParseError_En(doc.GetParseError())));
  }
  return ProfileReader(source, target).Read(doc);
}

EffectiveSeccomp EffectiveSeccompProfile(const api::Pod& pod, const api::Container& container,
                                         const SeccompSettings& settings) {
  EffectiveSeccomp out;
  const auto& csc = container.security_context;
  const auto& psc = pod.spec.security_context;
  const api::SeccompProfile* profile = nullptr;
  if (csc && csc->seccomp_profile) {
    profile = &*csc->seccomp_profile;
    out.field = fmt::format("{}.securityContext.seccompProfile", api::ContainerPath(container).String());
  } else if (psc && psc->seccomp_profile) {
    profile = &*psc->seccomp_profile;
    out.field = "spec.securityContext.seccompProfile";
  }
  if (profile != nullptr) {
    out.type = profile->type;
    out.localhost_profile = profile->localhost_profile.value_or("");
  } else {
    out.type = settings.seccomp_default ? "RuntimeDefault" : "Unconfined";
  }
  return out;
}

Result<std::optional<SpecSeccomp>> ContainerSeccomp(const api::Pod& pod,
                                                    const api::Container& container,
                                                    const SeccompSettings& settings,
                                                    const std::vector<std::string>& capabilities) {
  if (container.IsPrivileged()) return std::optional<SpecSeccomp>();
  const EffectiveSeccomp effective = EffectiveSeccompProfile(pod, container, settings);
  Result<std::string> text = std::string();
  std::string source;
  if (effective.type == "RuntimeDefault") {
    source = settings.default_profile.string();
    text = ReadSmallFile(settings.default_profile, kMaxProfileSize);
  } else if (effective.type == "Localhost") {
    source = (settings.profile_root / effective.localhost_profile).string();
    text = ReadProfileBeneath(settings.profile_root, effective.localhost_profile);
  } else if (effective.type == "Unconfined") {
    return std::optional<SpecSeccomp>();
  } else {
    return Failure(fmt::format("{}.type: unknown seccomp profile type \"{}\"", effective.field,
                               effective.type));
  }
  if (!text) {
    return std::unexpected(
        text.error().Wrap(fmt::format("cannot load seccomp profile \"{}\"", source)));
  }
  auto spec = ConvertSeccompProfile(*text, source, NativeSeccompTarget(capabilities));
  if (!spec) return std::unexpected(std::move(spec.error()));
  return std::optional<SpecSeccomp>(std::move(*spec));
}

}  // namespace podlimits::cri
