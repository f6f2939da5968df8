// PodSecurityConfiguration inside an AdmissionConfiguration: inline or by path, defaults,
// exemptions, and the errors kube-apiserver would refuse to start with.
#include "admission/psa_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace podlimits::admission::psa {
namespace {

namespace fs = std::filesystem;

std::string AdmissionConfig(std::string_view plugin_yaml) {
  return "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n" +
         std::string(plugin_yaml);
}

constexpr std::string_view kFull = R"(- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults:
      enforce: baseline
      enforce-version: v1.29
      audit: restricted
      audit-version: latest
      warn: restricted
      warn-version: v1.38
    exemptions:
      usernames: [system:serviceaccount:kube-system:replicaset-controller]
      runtimeClasses: [kata.example.com]
      namespaces: [kube-system]
)";

// A scratch directory per test, removed afterwards.
class PsaConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("psa_config_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path Write(const std::string& name, std::string_view text) {
    fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

TEST(PsaConfigTest, InlineConfiguration) {
  auto config = ParseAdmissionConfiguration(AdmissionConfig(kFull), "admission.yaml", ".");
  ASSERT_TRUE(config.has_value()) << config.error();
  EXPECT_EQ(config->defaults.enforce.String(), "baseline:v1.29");
  EXPECT_EQ(config->defaults.audit.String(), "restricted:latest");
  EXPECT_EQ(config->defaults.warn.String(), "restricted:v1.38");
  EXPECT_THAT(config->exemptions.usernames,
              ::testing::ElementsAre("system:serviceaccount:kube-system:replicaset-controller"));
  EXPECT_THAT(config->exemptions.runtime_classes, ::testing::ElementsAre("kata.example.com"));
  EXPECT_THAT(config->exemptions.namespaces, ::testing::ElementsAre("kube-system"));
}

TEST(PsaConfigTest, DefaultsAndFallbacks) {
  struct Case {
    std::string name;
    std::string text;
    std::string enforce, audit, warn;
  };
  const std::vector<Case> cases = {
      {"no plugins", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n",
       "privileged:latest", "privileged:latest", "privileged:latest"},
      {"other plugins only", AdmissionConfig("- name: LimitRanger\n  path: limitranger.yaml\n"),
       "privileged:latest", "privileged:latest", "privileged:latest"},
      {"PodSecurity with neither configuration nor path", AdmissionConfig("- name: PodSecurity\n"),
       "privileged:latest", "privileged:latest", "privileged:latest"},
      {"unset and empty defaults become privileged/latest",
       AdmissionConfig("- name: PodSecurity\n  configuration:\n"
                       "    apiVersion: pod-security.admission.config.k8s.io/v1\n"
                       "    kind: PodSecurityConfiguration\n    defaults:\n"
                       "      enforce: restricted\n      audit: \"\"\n"),
       "restricted:latest", "privileged:latest", "privileged:latest"},
      {"the first PodSecurity entry wins",
       AdmissionConfig("- name: PodSecurity\n  configuration:\n"
                       "    apiVersion: pod-security.admission.config.k8s.io/v1\n"
                       "    kind: PodSecurityConfiguration\n    defaults:\n"
                       "      warn: baseline\n"
                       "- name: PodSecurity\n  configuration:\n"
                       "    apiVersion: pod-security.admission.config.k8s.io/v1\n"
                       "    kind: PodSecurityConfiguration\n    defaults:\n"
                       "      warn: restricted\n"),
       "privileged:latest", "privileged:latest", "baseline:latest"},
      {"older served API versions",
       AdmissionConfig("- name: PodSecurity\n  configuration:\n"
                       "    apiVersion: pod-security.admission.config.k8s.io/v1beta1\n"
                       "    kind: PodSecurityConfiguration\n    defaults:\n"
                       "      audit: baseline\n      audit-version: v1.25\n"),
       "privileged:latest", "baseline:v1.25", "privileged:latest"},
      {"JSON",
       R"({"apiVersion":"apiserver.config.k8s.io/v1","kind":"AdmissionConfiguration","plugins":[)"
       R"({"name":"PodSecurity","configuration":{"apiVersion":"pod-security.admission.config.k8s.io/v1",)"
       R"("kind":"PodSecurityConfiguration","defaults":{"enforce":"baseline"}}}]})",
       "baseline:latest", "privileged:latest", "privileged:latest"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto config = ParseAdmissionConfiguration(c.text, "admission.yaml", ".");
    ASSERT_TRUE(config.has_value()) << config.error();
    EXPECT_EQ(config->defaults.enforce.String(), c.enforce);
    EXPECT_EQ(config->defaults.audit.String(), c.audit);
    EXPECT_EQ(config->defaults.warn.String(), c.warn);
  }
  EXPECT_EQ(DefaultPodSecurityConfiguration().defaults, PrivilegedPolicy());
}

TEST(PsaConfigTest, Errors) {
  auto plugin = [](std::string_view body) {
    return AdmissionConfig(
        "- name: PodSecurity\n  configuration:\n"
        "    apiVersion: pod-security.admission.config.k8s.io/v1\n"
        "    kind: PodSecurityConfiguration\n" +
        std::string(body));
  };
  const std::string where = "a.yaml: plugins[0].configuration: ";
  struct Case {
    std::string name;
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"invalid level", plugin("    defaults:\n      enforce: strict\n"),
       where + "PodSecurity configuration error: Enforce.Level: must be one of privileged, "
               "baseline, restricted"},
      {"several invalid defaults, in Go field order",
       plugin("    defaults:\n      warn-version: \"1.25\"\n      enforce: Baseline\n"),
       where +
           R"(PodSecurity configuration error: [Enforce.Level: must be one of privileged, baseline, restricted, Warn.Version: must be "latest" or "v1.x"])"},
      {"bad exemptions",
       plugin("    exemptions:\n      namespaces: [kube-system, Bad_NS, kube-system]\n"
              "      runtimeClasses: [-bad]\n      usernames: [alice, \"\", alice]\n"),
       where + "PodSecurity invalid: [exemptions.namespaces[1]: Invalid value: \"Bad_NS\": a "
               "lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
               "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
               "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), "
               "exemptions.namespaces[2]: Duplicate value: \"kube-system\", "
               "exemptions.runtimeClasses[0]: Invalid value: \"-bad\": a lowercase RFC 1123 "
               "subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'example.com', regex "
               "used for validation is "
               "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), "
               "exemptions.usernames[1]: Invalid value: \"\": username must not be empty, "
               "exemptions.usernames[2]: Duplicate value: \"alice\"]"},
      {"empty username", plugin("    exemptions:\n      usernames: [\"\"]\n"),
       where + R"(PodSecurity invalid: exemptions.usernames[0]: Invalid value: "": username )"
               "must not be empty"},
      {"each exemption list reports its own duplicates, after the first occurrence",
       plugin("    exemptions:\n      namespaces: [a, a, a]\n      runtimeClasses: [gvisor, "
              "gvisor]\n      usernames: [bob, alice, bob]\n"),
       where + R"(PodSecurity invalid: [exemptions.namespaces[1]: Duplicate value: "a", )"
               R"(exemptions.namespaces[2]: Duplicate value: "a", exemptions.runtimeClasses[1]: )"
               R"(Duplicate value: "gvisor", exemptions.usernames[2]: Duplicate value: "bob"])"},
      {"an empty namespace is an invalid name",
       plugin("    exemptions:\n      namespaces: [\"\"]\n"),
       where + R"(PodSecurity invalid: exemptions.namespaces[0]: Invalid value: "": a lowercase )"
               "RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
               "must start and end with an alphanumeric character (e.g. 'my-name',  or "
               "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
      {"unknown field in the plugin configuration",
       plugin("    defaults:\n      enforcee: baseline\n"),
       where + "PodSecurityConfiguration in version "
               "\"pod-security.admission.config.k8s.io/v1\" cannot be handled as a "
               "PodSecurityConfiguration: strict decoding error: unknown field "
               "\"defaults.enforcee\""},
      {"unknown field in AdmissionConfiguration",
       AdmissionConfig("- name: PodSecurity\n  configuraton: {}\n"),
       "a.yaml: AdmissionConfiguration in version \"apiserver.config.k8s.io/v1\" cannot be "
       "handled as a AdmissionConfiguration: strict decoding error: unknown field "
       "\"plugins[0].configuraton\""},
      {"wrong embedded kind",
       AdmissionConfig("- name: PodSecurity\n  configuration:\n    apiVersion: v1\n"
                       "    kind: ConfigMap\n"),
       where + "the PodSecurity plugin configuration must be a PodSecurityConfiguration "
               "(pod-security.admission.config.k8s.io/v1), got kind \"ConfigMap\" apiVersion "
               "\"v1\""},
      {"embedded configuration without kind",
       AdmissionConfig("- name: PodSecurity\n  configuration:\n    defaults: {}\n"),
       where + "the PodSecurity plugin configuration must be a PodSecurityConfiguration "
               "(pod-security.admission.config.k8s.io/v1), got kind \"\" apiVersion \"\""},
      {"not an AdmissionConfiguration",
       "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\n",
       "a.yaml: expected kind \"AdmissionConfiguration\" with apiVersion "
       "\"apiserver.config.k8s.io/v1\", got kind \"PodSecurityConfiguration\" apiVersion "
       "\"pod-security.admission.config.k8s.io/v1\""},
      {"not an object", "- a\n- b\n",
       "a.yaml: expected an AdmissionConfiguration object, got array"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto config = ParseAdmissionConfiguration(c.text, "a.yaml", ".");
    ASSERT_FALSE(config.has_value());
    EXPECT_EQ(config.error().Message(), c.error);
  }
}

TEST(PsaConfigTest, YamlSyntaxError) {
  auto config = ParseAdmissionConfiguration("plugins: [\n", "a.yaml", ".");
  ASSERT_FALSE(config.has_value());
  EXPECT_THAT(config.error().Message(), ::testing::StartsWith("a.yaml: yaml: line "));
}

TEST_F(PsaConfigFileTest, PluginConfigurationByRelativePath) {
  Write("psa/podsecurity.yaml",
        "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\n"
        "defaults:\n  enforce: restricted\n  enforce-version: v1.30\n"
        "exemptions:\n  namespaces: [kube-system]\n");
  fs::path admission = Write(
      "admission.yaml", AdmissionConfig("- name: PodSecurity\n  path: psa/podsecurity.yaml\n"));
  auto config = LoadAdmissionConfiguration(admission);
  ASSERT_TRUE(config.has_value()) << config.error();
  EXPECT_EQ(config->defaults.enforce.String(), "restricted:v1.30");
  EXPECT_THAT(config->exemptions.namespaces, ::testing::ElementsAre("kube-system"));
}

TEST_F(PsaConfigFileTest, PluginConfigurationByAbsoluteJsonPath) {
  fs::path psa =
      Write("psa.json", R"({"apiVersion":"pod-security.admission.config.k8s.io/v1",)"
                        R"("kind":"PodSecurityConfiguration","defaults":{"warn":"baseline"},)"
                        R"("exemptions":{"usernames":["admin"]}})");
  fs::path admission = Write(
      "admission.yaml", AdmissionConfig("- name: PodSecurity\n  path: " + psa.string() + "\n"));
  auto config = LoadAdmissionConfiguration(admission);
  ASSERT_TRUE(config.has_value()) << config.error();
  EXPECT_EQ(config->defaults.warn.String(), "baseline:latest");
  EXPECT_THAT(config->exemptions.usernames, ::testing::ElementsAre("admin"));
}

TEST_F(PsaConfigFileTest, InlineConfigurationWinsOverPath) {
  fs::path admission =
      Write("admission.yaml",
            AdmissionConfig("- name: PodSecurity\n  path: does-not-exist.yaml\n  configuration:\n"
                            "    apiVersion: pod-security.admission.config.k8s.io/v1\n"
                            "    kind: PodSecurityConfiguration\n    defaults:\n"
                            "      enforce: baseline\n"));
  auto config = LoadAdmissionConfiguration(admission);
  ASSERT_TRUE(config.has_value()) << config.error();
  EXPECT_EQ(config->defaults.enforce.String(), "baseline:latest");
}

TEST_F(PsaConfigFileTest, EmptyPluginFileMeansDefaults) {
  Write("empty.yaml", "");
  fs::path admission =
      Write("admission.yaml", AdmissionConfig("- name: PodSecurity\n  path: empty.yaml\n"));
  auto config = LoadAdmissionConfiguration(admission);
  ASSERT_TRUE(config.has_value()) << config.error();
  EXPECT_EQ(config->defaults, PrivilegedPolicy());
}

TEST_F(PsaConfigFileTest, FileErrorsNameTheFile) {
  fs::path admission =
      Write("admission.yaml", AdmissionConfig("- name: PodSecurity\n  path: missing.yaml\n"));
  auto config = LoadAdmissionConfiguration(admission);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().Message(), admission.string() +
                                ": plugins[0].path: unable to read PodSecurity configuration "
                                "from \"" +
                                (dir_ / "missing.yaml").string() + "\": No such file or directory");

  auto none = LoadAdmissionConfiguration(dir_ / "nope.yaml");
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().Message(), "unable to read admission control configuration from \"" +
                              (dir_ / "nope.yaml").string() + "\": No such file or directory");

  Write("bad.yaml",
        "apiVersion: pod-security.admission.config.k8s.io/v1\n"
        "kind: PodSecurityConfiguration\ndefaults:\n  audit: everything\n");
  fs::path bad_ref =
      Write("admission2.yaml", AdmissionConfig("- name: PodSecurity\n  path: bad.yaml\n"));
  auto bad = LoadAdmissionConfiguration(bad_ref);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().Message(), (dir_ / "bad.yaml").string() +
                             ": PodSecurity configuration error: Audit.Level: must be one of "
                             "privileged, baseline, restricted");
}

}  // namespace
}  // namespace podlimits::admission::psa
