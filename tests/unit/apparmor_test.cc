// AppArmor: which profile a container gets, what the node refuses, and loading the default.
#include "cri/apparmor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "temp_dir.h"
#include "test_support.h"

namespace podlimits::cri {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

api::Pod PodWith(std::string_view container_extra, std::string_view spec_extra = "",
                 std::string_view annotations = "") {
  std::string y = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n";
  if (!annotations.empty()) y += "  annotations: " + std::string(annotations) + "\n";
  y += "spec:\n";
  y += spec_extra;
  y += "  containers:\n  - name: app\n    image: busybox\n";
  y += container_extra;
  return podlimits::testing::DefaultedPod(y);
}

AppArmorHost Host(bool kernel, bool parser, std::set<std::string> loaded = {}) {
  AppArmorHost h;
  h.kernel_enabled = kernel;
  if (parser) h.parser = "/sbin/apparmor_parser";
  h.loaded = std::move(loaded);
  return h;
}

TEST(AppArmor, ProbesTheNodeAsRuncAndContainerdDo) {
  podlimits::testing::TempDir root("podlimits-apparmor");
  EXPECT_FALSE(ProbeAppArmor(root.path()).kernel_enabled);  // no module parameter
  root.Write("sys/module/apparmor/parameters/enabled", "Y\n");
  EXPECT_FALSE(ProbeAppArmor(root.path()).kernel_enabled);  // no securityfs
  root.Write("sys/kernel/security/apparmor/profiles",
             "podlimits-default (enforce)\nnvidia_modprobe (enforce)\nmy profile (complain)\n");
  AppArmorHost h = ProbeAppArmor(root.path());
  EXPECT_TRUE(h.kernel_enabled);
  EXPECT_TRUE(h.parser.empty());
  EXPECT_FALSE(h.CanLoadProfiles());
  EXPECT_THAT(h.loaded, ElementsAre("my profile", "nvidia_modprobe", "podlimits-default"));
  root.Write("sbin/apparmor_parser", "#!/bin/sh\n");
  chmod((root / "sbin/apparmor_parser").c_str(), 0755);
  EXPECT_TRUE(ProbeAppArmor(root.path()).CanLoadProfiles());
  root.Write("sys/module/apparmor/parameters/enabled", "N\n");
  EXPECT_FALSE(ProbeAppArmor(root.path()).kernel_enabled);
}

TEST(AppArmor, TheContainersProfileAsTheKubeletFindsIt) {
  auto type = [](const api::Pod& pod) {
    auto p = ContainerAppArmorField(pod, pod.spec.containers[0]);
    return p ? p->type + ":" + p->localhost_profile.value_or("") : std::string("none");
  };
  EXPECT_EQ(type(PodWith("")), "none");
  EXPECT_EQ(type(PodWith("", "  securityContext: {appArmorProfile: {type: RuntimeDefault}}\n")),
            "RuntimeDefault:");
  // The container's field wins over the pod's.
  EXPECT_EQ(type(PodWith("    securityContext: {appArmorProfile: {type: Localhost, "
                         "localhostProfile: p}}\n",
                         "  securityContext: {appArmorProfile: {type: RuntimeDefault}}\n")),
            "Localhost:p");
  // The deprecated annotation comes before the pod's field.
  EXPECT_EQ(type(PodWith("", "  securityContext: {appArmorProfile: {type: RuntimeDefault}}\n",
                         "{container.apparmor.security.beta.kubernetes.io/app: unconfined}")),
            "Unconfined:");
}

TEST(AppArmor, AdmissionSaysWhatTheKubeletSays) {
  const api::Pod plain = PodWith("");
  const api::Pod unconfined =
      PodWith("    securityContext: {appArmorProfile: {type: Unconfined}}\n");
  const api::Pod runtime_default =
      PodWith("", "  securityContext: {appArmorProfile: {type: RuntimeDefault}}\n");
  const api::Pod localhost =
      PodWith("    securityContext: {appArmorProfile: {type: Localhost, localhostProfile: k8s-x}}\n");
  const api::Pod annotated =
      PodWith("", "", "{container.apparmor.security.beta.kubernetes.io/app: runtime/default}");

  for (const auto* pod : {&plain, &unconfined}) {
    EXPECT_FALSE(PodRequiresAppArmor(*pod));
    EXPECT_EQ(AppArmorAdmissionProblem(*pod, Host(false, false)), std::nullopt);
  }
  for (const auto* pod : {&runtime_default, &localhost, &annotated}) {
    EXPECT_TRUE(PodRequiresAppArmor(*pod));
    EXPECT_EQ(AppArmorAdmissionProblem(*pod, Host(false, false)),
              "AppArmor is not enabled on the host");
  }
  EXPECT_EQ(AppArmorAdmissionProblem(runtime_default, Host(true, true)), std::nullopt);
  EXPECT_THAT(AppArmorAdmissionProblem(runtime_default, Host(true, false)).value_or(""),
              HasSubstr("container \"app\" asks for the runtime's default profile, which cannot "
                        "be loaded: apparmor_parser is not installed"));
  EXPECT_EQ(AppArmorAdmissionProblem(localhost, Host(true, true)),
            "profile \"k8s-x\" is not loaded");
  EXPECT_EQ(AppArmorAdmissionProblem(localhost, Host(true, false, {"k8s-x"})), std::nullopt);
}

TEST(AppArmor, TheProfileContainerdApplies) {
  const AppArmorHost full = Host(true, true, {"k8s-x"});
  auto profile = [&](const api::Pod& pod, const AppArmorHost& host) {
    return ContainerAppArmorProfile(pod, pod.spec.containers[0], host).value_or("none");
  };
  EXPECT_EQ(profile(PodWith(""), full), "podlimits-default");
  EXPECT_EQ(profile(PodWith("    securityContext: {privileged: true}\n"), full), "none");
  EXPECT_EQ(profile(PodWith("    securityContext: {privileged: true, appArmorProfile: {type: "
                            "RuntimeDefault}}\n"),
                    full),
            "podlimits-default");
  EXPECT_EQ(profile(PodWith("    securityContext: {appArmorProfile: {type: Unconfined}}\n"), full),
            "none");
  EXPECT_EQ(profile(PodWith("    securityContext: {appArmorProfile: {type: Localhost, "
                            "localhostProfile: k8s-x}}\n"),
                    full),
            "k8s-x");
  // A host where profiles cannot be loaded: nothing by default, as on containerd; a loaded
  // Localhost profile still applies.
  EXPECT_EQ(profile(PodWith(""), Host(true, false)), "none");
  EXPECT_EQ(profile(PodWith(""), Host(false, false)), "none");
  EXPECT_EQ(profile(PodWith("    securityContext: {appArmorProfile: {type: Localhost, "
                            "localhostProfile: k8s-x}}\n"),
                    Host(true, false, {"k8s-x"})),
            "k8s-x");
}

TEST(AppArmor, DefaultProfileIsLoadedOnceWithTheParser) {
  podlimits::testing::TempDir dir("podlimits-apparmor-load");
  const std::string text = DefaultAppArmorProfile(dir / "no-apparmor.d");
  EXPECT_THAT(text, ::testing::StartsWith("@{PROC}=/proc/\n\nprofile podlimits-default "
                                          "flags=(attach_disconnected,mediate_deleted) {\n"));
  EXPECT_THAT(text, HasSubstr("  deny mount,\n"));
  EXPECT_THAT(text, HasSubstr("  deny @{PROC}/sys/kernel/{?,??,[^s][^h][^m]**} w,\n"));
  dir.Write("apparmor.d/abi/3.0", "");
  dir.Write("apparmor.d/tunables/global", "");
  dir.Write("apparmor.d/abstractions/base", "");
  const std::string full = DefaultAppArmorProfile(dir / "apparmor.d");
  EXPECT_THAT(full, ::testing::StartsWith("abi <abi/3.0>,\n\n#include <tunables/global>\n\n"));
  EXPECT_THAT(full, HasSubstr("{\n  #include <abstractions/base>\n"));

  // A parser that records its arguments.
  dir.Write("parser", "#!/bin/sh\necho \"$@\" >> " + (dir / "calls").string() + "\n");
  chmod((dir / "parser").c_str(), 0755);
  AppArmorHost host = Host(true, false);
  host.parser = dir / "parser";
  ASSERT_TRUE(EnsureDefaultAppArmorProfile(host, dir / "state"));
  ASSERT_TRUE(EnsureDefaultAppArmorProfile(host, dir / "state"));  // loaded: not again
  EXPECT_EQ(podlimits::testing::ReadText(dir / "calls"),
            "-Kr " + (dir / "state/podlimits-default").string() + "\n");
  EXPECT_TRUE(host.loaded.contains("podlimits-default"));

  dir.Write("failing", "#!/bin/sh\necho 'AppArmor parser error: syntax' >&2\nexit 1\n");
  chmod((dir / "failing").c_str(), 0755);
  AppArmorHost broken = Host(true, false);
  broken.parser = dir / "failing";
  auto failed = EnsureDefaultAppArmorProfile(broken, dir / "state");
  ASSERT_FALSE(failed);
  EXPECT_THAT(failed.error().Message(), HasSubstr("exit status 1: AppArmor parser error: syntax"));
  EXPECT_FALSE(broken.loaded.contains("podlimits-default"));
}

}  // namespace
}  // namespace podlimits::cri
