#include "cri/seccomp_profile.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "temp_dir.h"
#include "test_support.h"

namespace podlimits::cri {
namespace {

namespace fs = std::filesystem;

SeccompTarget Amd64(std::vector<std::string> caps = {}, std::string kernel = "6.1.0-56-amd64") {
  return {"amd64", "SCMP_ARCH_X86_64", std::move(caps), std::move(kernel)};
}

std::vector<std::string> Names(const SpecSeccomp& s) {
  std::vector<std::string> out;
  for (const auto& c : s.syscalls) out.insert(out.end(), c.names.begin(), c.names.end());
  return out;
}

constexpr std::string_view kDockerFormat = R"({
  "defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38,
  "archMap": [
    {"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86", "SCMP_ARCH_X32"]},
    {"architecture": "SCMP_ARCH_AARCH64", "subArchitectures": ["SCMP_ARCH_ARM"]}],
  "syscalls": [
    {"names": ["read", "write"], "action": "SCMP_ACT_ALLOW", "comment": "", "includes": {}, "excludes": {}},
    {"names": ["arch_prctl"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["amd64", "x32"]}},
    {"names": ["sync_file_range2"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["arm64"]}},
    {"names": ["mount"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_ADMIN"]}},
    {"names": ["chroot"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1, "errno": "EPERM",
     "excludes": {"caps": ["CAP_SYS_CHROOT"]}},
    {"names": ["newer"], "action": "SCMP_ACT_ALLOW", "includes": {"minKernel": "6.5"}},
    {"names": ["personality"], "action": "SCMP_ACT_ALLOW",
     "args": [{"index": 0, "value": 8, "valueTwo": 0, "op": "SCMP_CMP_EQ"}]}
  ]})";

TEST(SeccompProfile, DockerFormatIsConvertedForTheTarget) {
  auto s = ConvertSeccompProfile(kDockerFormat, "p.json", Amd64());
  ASSERT_TRUE(s) << s.error().Message();
  EXPECT_EQ(s->default_action, "SCMP_ACT_ERRNO");
  EXPECT_EQ(s->default_errno_ret, 38u);
  EXPECT_EQ(s->architectures,
            (std::vector<std::string>{"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"}));
  // arm64-only, CAP_SYS_ADMIN-only and too-new rules are left out; chroot's denial stays
  // because the container lacks CAP_SYS_CHROOT.
  EXPECT_EQ(Names(*s),
            (std::vector<std::string>{"read", "write", "arch_prctl", "chroot", "personality"}));
  const SpecSeccompSyscall& chroot = s->syscalls[2];
  EXPECT_EQ(chroot.action, "SCMP_ACT_ERRNO");
  EXPECT_EQ(chroot.errno_ret, 1u);
  const SpecSeccompSyscall& personality = s->syscalls[3];
  ASSERT_EQ(personality.args.size(), 1u);
  EXPECT_EQ(personality.args[0].value, 8u);
  EXPECT_EQ(personality.args[0].op, "SCMP_CMP_EQ");
}

TEST(SeccompProfile, CapabilitiesAndKernelSelectRules) {
  auto s = ConvertSeccompProfile(kDockerFormat, "p.json",
                                 Amd64({"CAP_SYS_ADMIN", "CAP_SYS_CHROOT"}, "6.6.1"));
  ASSERT_TRUE(s) << s.error().Message();
  EXPECT_EQ(Names(*s), (std::vector<std::string>{"read", "write", "arch_prctl", "mount", "newer",
                                                 "personality"}));
}

TEST(SeccompProfile, AnotherArchitectureGetsItsOwnRules) {
  auto s = ConvertSeccompProfile(kDockerFormat, "p.json",
                                 {"arm64", "SCMP_ARCH_AARCH64", {}, "6.1"});
  ASSERT_TRUE(s) << s.error().Message();
  EXPECT_EQ(s->architectures, (std::vector<std::string>{"SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"}));
  EXPECT_EQ(Names(*s),
            (std::vector<std::string>{"read", "write", "sync_file_range2", "chroot", "personality"}));
}

TEST(SeccompProfile, OciFormatPassesThrough) {
  auto s = ConvertSeccompProfile(
      R"({"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64"],
          "flags": ["SECCOMP_FILTER_FLAG_LOG"],
          "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13}]})",
      "oci.json", Amd64());
  ASSERT_TRUE(s) << s.error().Message();
  EXPECT_EQ(s->architectures, (std::vector<std::string>{"SCMP_ARCH_X86_64"}));
  EXPECT_EQ(s->flags, (std::vector<std::string>{"SECCOMP_FILTER_FLAG_LOG"}));
  EXPECT_EQ(Names(*s), (std::vector<std::string>{"mkdir", "mkdirat"}));
  EXPECT_EQ(s->syscalls[0].errno_ret, 13u);
}

struct BadProfile {
  std::string name;
  std::string json;
  std::string want;
};

void PrintTo(const BadProfile& p, std::ostream* os) { *os << p.name; }

class SeccompProfileErrors : public ::testing::TestWithParam<BadProfile> {};

TEST_P(SeccompProfileErrors, SayWhatAndWhere) {
  auto s = ConvertSeccompProfile(GetParam().json, "p.json", Amd64());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().Message(), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, SeccompProfileErrors,
    ::testing::Values(
        BadProfile{"NotJson", "{", "seccomp profile \"p.json\": invalid JSON at offset 1: Missing a name for object member."},
        BadProfile{"NotAnObject", "[]", "seccomp profile \"p.json\": a profile is a JSON object"},
        BadProfile{"NoDefaultAction", "{}", "seccomp profile \"p.json\": defaultAction: is required"},
        BadProfile{"UnknownAction", R"({"defaultAction": "SCMP_ACT_MAYBE"})",
                   "seccomp profile \"p.json\": defaultAction: unknown action \"SCMP_ACT_MAYBE\""},
        BadProfile{"RuleWithoutNames",
                   R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"action": "SCMP_ACT_ERRNO"}]})",
                   "seccomp profile \"p.json\": syscalls[0]: names no system call"},
        BadProfile{"ErrnoByNameOnly",
                   R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["x"], "action": "SCMP_ACT_ERRNO", "errno": "EPERM"}]})",
                   "seccomp profile \"p.json\": syscalls[0]: errno given by name only; set "
                   "errnoRet to its number"},
        BadProfile{"BadOperator",
                   R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["x"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "op": "LIKE"}]}]})",
                   "seccomp profile \"p.json\": syscalls[0].args[0].op: unknown operator \"LIKE\""},
        BadProfile{"ArgIndexOutOfRange",
                   R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["x"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 6, "op": "SCMP_CMP_EQ"}]}]})",
                   "seccomp profile \"p.json\": syscalls[0].args[0].index: a system call has 6 "
                   "arguments (0-5)"},
        BadProfile{"NegativeErrno",
                   R"({"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": -1})",
                   "seccomp profile \"p.json\": defaultErrnoRet: must be an integer from 0 to "
                   "4294967295"}),
    [](const auto& info) { return info.param.name; });

// The maintained default from Debian's archive converts; whatever its version, it filters by
// default and allows what every shell needs.
TEST(SeccompProfile, DebiansDefaultProfileConverts) {
  const fs::path path = "/usr/share/containers/seccomp.json";
  ASSERT_TRUE(fs::exists(path))
      << "RuntimeDefault's profile is missing: install golang-github-containers-common "
         "(scripts/install-deps does)";
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  SeccompTarget target = NativeSeccompTarget({"CAP_CHOWN", "CAP_SETUID", "CAP_SETGID"});
  auto s = ConvertSeccompProfile(text, path.string(), target);
  ASSERT_TRUE(s) << s.error().Message();
  EXPECT_NE(s->default_action, "SCMP_ACT_ALLOW");
  EXPECT_FALSE(s->architectures.empty());
  const auto names = Names(*s);
  for (const char* needed : {"read", "write", "execve", "exit_group", "clone"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), needed), names.end()) << needed;
  }
}

api::Pod PodWith(std::string_view spec) {
  return podlimits::testing::DefaultedPod(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n" + std::string(spec));
}

TEST(EffectiveSeccompProfile, ContainerWinsPodIsInheritedDefaultIsConfigured) {
  api::Pod pod = PodWith(
      "  securityContext: {seccompProfile: {type: Localhost, localhostProfile: a.json}}\n"
      "  containers:\n  - {name: a, image: x}\n"
      "  - {name: b, image: x, securityContext: {seccompProfile: {type: Unconfined}}}\n");
  SeccompSettings settings;
  EffectiveSeccomp a = EffectiveSeccompProfile(pod, pod.spec.containers[0], settings);
  EXPECT_EQ(a.type, "Localhost");
  EXPECT_EQ(a.localhost_profile, "a.json");
  EXPECT_EQ(a.field, "spec.securityContext.seccompProfile");
  EffectiveSeccomp b = EffectiveSeccompProfile(pod, pod.spec.containers[1], settings);
  EXPECT_EQ(b.type, "Unconfined");
  EXPECT_EQ(b.field, "spec.containers[1].securityContext.seccompProfile");

  api::Pod bare = PodWith("  containers:\n  - {name: a, image: x}\n");
  EXPECT_EQ(EffectiveSeccompProfile(bare, bare.spec.containers[0], settings).type, "Unconfined");
  settings.seccomp_default = true;
  EXPECT_EQ(EffectiveSeccompProfile(bare, bare.spec.containers[0], settings).type,
            "RuntimeDefault");
}

TEST(ContainerSeccomp, PrivilegedContainersAreNeverFiltered) {
  api::Pod pod = PodWith(
      "  securityContext: {seccompProfile: {type: RuntimeDefault}}\n"
      "  containers:\n  - {name: a, image: x, securityContext: {privileged: true}}\n");
  auto s = ContainerSeccomp(pod, pod.spec.containers[0], SeccompSettings{}, {});
  ASSERT_TRUE(s) << s.error().Message();
  EXPECT_FALSE(s->has_value());
}

TEST(ContainerSeccomp, LocalhostProfilesStayBelowTheRoot) {
  podlimits::testing::TempDir dir;
  const fs::path root = dir.path() / "seccomp";
  fs::create_directories(root / "team");
  std::ofstream(root / "team/deny-mkdir.json")
      << R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13}]})";
  std::ofstream(dir.path() / "outside.json") << R"({"defaultAction": "SCMP_ACT_ALLOW"})";
  fs::create_symlink(dir.path() / "outside.json", root / "link.json");
  SeccompSettings settings;
  settings.profile_root = root;
  auto with = [&](const std::string& profile) {
    api::Pod pod = PodWith("  containers:\n  - {name: a, image: x}\n");
    pod.spec.containers[0].security_context.emplace();
    pod.spec.containers[0].security_context->seccomp_profile =
        api::SeccompProfile{"Localhost", profile};
    return ContainerSeccomp(pod, pod.spec.containers[0], settings, {});
  };
  auto ok = with("team/deny-mkdir.json");
  ASSERT_TRUE(ok) << ok.error().Message();
  ASSERT_TRUE(ok->has_value());
  EXPECT_EQ(Names(**ok), (std::vector<std::string>{"mkdir"}));

  auto missing = with("nope.json");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().Message().find("cannot load seccomp profile \"" +
                                           (root / "nope.json").string() + "\""),
            std::string::npos)
      << missing.error().Message();
  EXPECT_NE(missing.error().Message().find("No such file or directory"), std::string::npos)
      << missing.error().Message();

  for (const std::string escape : {"../outside.json", "link.json"}) {
    auto refused = with(escape);
    ASSERT_FALSE(refused) << escape;
    EXPECT_NE(refused.error().Message().find("below the node's seccomp profile root"),
              std::string::npos)
        << refused.error().Message();
  }
}

}  // namespace
}  // namespace podlimits::cri
