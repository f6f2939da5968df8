// `podlimits serve` driven by the kubectl installed on the machine, the client it is for.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "net_test_support.h"
#include "run_test_support.h"
#include "temp_dir.h"

namespace podlimits::testing {
namespace {

namespace fs = std::filesystem;

TEST(ServeTest, KubectlTalksToIt) {
  const fs::path kubectl = "/usr/bin/kubectl";
  ASSERT_TRUE(fs::exists(kubectl)) << "these tests drive the machine's kubectl (v1.32)";
  TempDir dir("podlimits-serve");
  const std::string listen = "127.0.0.1:" + std::to_string(UnusedLoopbackPort());
  const std::string kubeconfig = (dir / "node/kubeconfig").string();
  CommandResult version, health, anonymous, second, resources, created, listed, invalid, deleted,
      unknown;
  RunOptions options;
  options.interrupt_on = "listening on";
  options.signal = SIGTERM;
  options.timeout = std::chrono::seconds(60);
  options.before_signal = [&](pid_t) {
    version = RunCommand({kubectl, "--kubeconfig", kubeconfig, "version", "-o", "json"});
    health = RunCommand({kubectl, "--kubeconfig", kubeconfig, "get", "--raw", "/readyz"});
    resources = RunCommand({kubectl, "--kubeconfig", kubeconfig, "api-resources"});
    // kubectl's default --validate=strict: it finds fieldValidation in serve's OpenAPI and
    // leaves the strict decoding to the server.
    RunOptions stdin_yaml;
    stdin_yaml.stdin_text =
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\napiVersion: v1\n"
        "kind: ConfigMap\nmetadata: {name: app, namespace: team}\ndata: {a: \"1\", b: \"2\"}\n";
    created = RunCommand({kubectl, "--kubeconfig", kubeconfig, "create", "-f", "-"}, stdin_yaml);
    listed = RunCommand({kubectl, "--kubeconfig", kubeconfig, "get", "configmaps", "-n", "team"});
    RunOptions bad_yaml;
    bad_yaml.stdin_text =
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: {\"bad key\": x}\n";
    invalid = RunCommand({kubectl, "--kubeconfig", kubeconfig, "create", "-f", "-"}, bad_yaml);
    RunOptions unknown_yaml;
    unknown_yaml.stdin_text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: u}\nfoo: 1\n";
    unknown = RunCommand({kubectl, "--kubeconfig", kubeconfig, "create", "-f", "-"}, unknown_yaml);
    deleted = RunCommand({kubectl, "--kubeconfig", kubeconfig, "delete", "configmap", "app", "-n",
                          "team"});
    // Without credentials (kubectl would prompt for a password here, as against any apiserver).
    anonymous = RunCommand({"/usr/bin/curl", "-sk", "https://" + listen + "/version"});
    second = RunCommand({PodlimitsBinary(), "serve", "--data-dir", (dir / "node").string(),
                         "--listen", "127.0.0.1:1"});
  };
  auto serve = RunCommand(
      {PodlimitsBinary(), "serve", "--data-dir", (dir / "node").string(), "--listen", listen},
      options);
  EXPECT_EQ(serve.exit_code, 0) << serve.err;
  EXPECT_NE(serve.err.find("podlimits serve: stopped (SIGTERM)"), std::string::npos) << serve.err;

  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_NE(version.out.find("\"gitVersion\": \"v1.32.0+podlimits\""), std::string::npos)
      << version.out;
  EXPECT_EQ(health.exit_code, 0) << health.err;
  EXPECT_EQ(health.out, "ok");
  EXPECT_EQ(resources.exit_code, 0) << resources.err;
  EXPECT_EQ(resources.out,
            "NAME          SHORTNAMES   APIVERSION   NAMESPACED   KIND\n"
            "configmaps    cm           v1           true         ConfigMap\n"
            "events        ev           v1           true         Event\n"
            "limitranges   limits       v1           true         LimitRange\n"
            "namespaces    ns           v1           false        Namespace\n"
            "nodes         no           v1           false        Node\n"
            "pods          po           v1           true         Pod\n"
            "secrets                    v1           true         Secret\n");
  EXPECT_EQ(anonymous.exit_code, 0) << anonymous.err;
  EXPECT_EQ(anonymous.out,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}");
  EXPECT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out, "namespace/team created\nconfigmap/app created\n");
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_TRUE(listed.out.starts_with("NAME   DATA   AGE\napp    2      ")) << listed.out;
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_EQ(invalid.err,
            "The ConfigMap \"bad\" is invalid: data[bad key]: Invalid value: \"bad key\": a valid "
            "config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
            "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
            "'[-._a-zA-Z0-9]+')\n");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err,
            "Error from server (BadRequest): error when creating \"STDIN\": ConfigMap in version "
            "\"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field "
            "\"foo\"\n");
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "configmap \"app\" deleted\n");
  EXPECT_EQ(second.exit_code, 3) << second.err;
  EXPECT_NE(second.err.find("another podlimits serve is using"), std::string::npos) << second.err;
  EXPECT_EQ(fs::status(dir / "node/kubeconfig").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

}  // namespace
}  // namespace podlimits::testing
