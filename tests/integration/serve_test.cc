// `podlimits serve` driven by the kubectl installed on the machine, the client it is for.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>


#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "net_test_support.h"
#include "nodeagent/monitor_files.h"
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

namespace podlimits::testing {
namespace {

namespace fs = std::filesystem;

class ServePodsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (cgroups, mounts, an OCI runtime)";
    ASSERT_TRUE(fs::exists(kubectl_)) << "these tests drive the machine's kubectl (v1.32)";
    ASSERT_EQ(LoadBusyboxImage(dir_.path(), dir_ / "node/images"), "");
    WriteNodeConfig("");
    listen_ = "127.0.0.1:" + std::to_string(UnusedLoopbackPort());
  }

  void WriteNodeConfig(const std::string& kubelet) {
    std::ofstream(dir_ / "node.yaml")
        << "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n" << kubelet
        << "---\n"
        << "apiVersion: podlimits.dev/v1alpha1\nkind: NodeConfiguration\nstateDirectory: "
        << (dir_ / "state").string() << "\n";
  }

  // A test that failed half-way may leave pods running: their monitors are stopped (and their
  // pods torn down) before the scratch directory goes.
  void TearDown() override {
    const fs::path pods = dir_ / "node/pods";
    std::error_code ec;
    if (!fs::exists(pods)) return;
    std::vector<fs::path> stopped;
    for (const auto& e : fs::directory_iterator(pods, ec)) {
      // Only a live monitor (its lock held) is signalled: never a recycled pid.
      if (nodeagent::StopMonitor(e.path(), 0)) stopped.push_back(e.path());
    }
    for (const auto& d : stopped) {
      for (int i = 0; i < 100 && nodeagent::LiveMonitorPid(d); ++i) ::usleep(100'000);
      ADD_FAILURE() << "a pod was still running at the end of the test: " << d;
    }
  }

  CommandResult Kubectl(std::vector<std::string> args, std::string stdin_text = "") {
    std::vector<std::string> argv = {kubectl_.string(), "--kubeconfig",
                                     (dir_ / "node/kubeconfig").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options;
    options.stdin_text = std::move(stdin_text);
    options.timeout = std::chrono::seconds(60);
    return RunCommand(argv, options);
  }

  // Runs `serve` until `during` returns, then ends it with `signal`.
  CommandResult Serve(const std::function<void(pid_t)>& during, int signal = SIGTERM) {
    RunOptions options;
    options.interrupt_on = "listening on";
    options.signal = signal;
    options.timeout = std::chrono::seconds(120);
    options.before_signal = during;
    return RunCommand({PodlimitsBinary(), "serve", "--data-dir", (dir_ / "node").string(),
                       "--listen", listen_, "--node-config", (dir_ / "node.yaml").string()},
                      options);
  }

  std::string MonitorPid(const std::string& uid) {
    return ReadText(dir_ / "node/pods" / uid / "monitor.lock");
  }

  const fs::path kubectl_ = "/usr/bin/kubectl";
  TempDir dir_{"podlimits-serve-pods"};
  std::string listen_;
};

constexpr std::string_view kPods = R"(apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  terminationGracePeriodSeconds: 10
  containers:
  - name: web
    image: busybox:latest
    command: [sh, -c, 'echo hello; trap "echo bye; exit 0" TERM; while true; do sleep 0.1; done']
---
apiVersion: v1
kind: Pod
metadata: {name: once}
spec:
  restartPolicy: Never
  containers:
  - name: job
    image: busybox:latest
    command: [sh, -c, 'echo working; exit 3']
)";

// Pods run from the API to their end, survive a kill -9 of the daemon (adopted, not restarted),
// and once deleted leave nothing behind.
TEST_F(ServePodsTest, PodsRunSurviveTheDaemonAndGoWhenDeleted) {
  CommandResult created, ready, logs, failed, table, describe, uid, monitor_pid, nodes, node;
  auto first = Serve(
      [&](pid_t serve) {
        nodes = Kubectl({"get", "nodes"});
        node = Kubectl({"get", "nodes", "-o",
                        "jsonpath={.items[0].status.allocatable.pid} "
                        "{.items[0].status.conditions[?(@.type==\"Ready\")].status}"});
        created = Kubectl({"create", "-f", "-"}, std::string(kPods));
        ready = Kubectl({"wait", "--for=condition=Ready", "pod/web", "--timeout=60s"});
        failed = Kubectl({"wait", "--for=jsonpath={.status.phase}=Failed", "pod/once",
                          "--timeout=60s"});
        logs = Kubectl({"logs", "web"});
        table = Kubectl({"get", "pods"});
        describe = Kubectl({"describe", "pod", "once"});
        uid = Kubectl({"get", "pod", "web", "-o", "jsonpath={.metadata.uid}"});
        monitor_pid = {0, MonitorPid(uid.out), ""};
        ::kill(serve, SIGKILL);  // the daemon dies; the pods must not notice
      },
      SIGKILL);
  ASSERT_EQ(LinesWith(nodes.out, " ").size(), 2u) << nodes.out << nodes.err;
  EXPECT_TRUE(nodes.out.starts_with("NAME")) << nodes.out;
  EXPECT_NE(nodes.out.find("   Ready    <none>   "), std::string::npos) << nodes.out;
  EXPECT_NE(nodes.out.find("v1.32.0+podlimits"), std::string::npos) << nodes.out;
  EXPECT_TRUE(node.out.ends_with(" True")) << node.out << node.err;
  EXPECT_GT(std::stoll("0" + node.out.substr(0, node.out.find(' '))), 0) << node.out;
  EXPECT_EQ(created.out, "pod/web created\npod/once created\n") << created.err;
  EXPECT_EQ(ready.out, "pod/web condition met\n") << ready.err;
  EXPECT_EQ(failed.out, "pod/once condition met\n") << failed.err;
  EXPECT_EQ(logs.out, "hello\n") << logs.err;
  auto lines = LinesWith(table.out, " ");
  ASSERT_EQ(lines.size(), 3u) << table.out;
  EXPECT_TRUE(lines[0].starts_with("NAME   READY   STATUS    RESTARTS   AGE")) << table.out;
  EXPECT_TRUE(lines[1].starts_with("once   0/1     Error     0          ")) << table.out;
  EXPECT_TRUE(lines[2].starts_with("web    1/1     Running   0          ")) << table.out;
  EXPECT_NE(describe.out.find("      Reason:       Error\n      Exit Code:    3\n"),
            std::string::npos)
      << describe.out;
  EXPECT_NE(describe.out.find("Started container job"), std::string::npos) << describe.out;
  ASSERT_FALSE(uid.out.empty());

  CommandResult after_restart, still_monitor, deleted, gone, logs_again;
  auto second = Serve([&](pid_t) {
    after_restart = Kubectl({"get", "pod", "web", "-o",
                             "jsonpath={.status.phase} {.status.containerStatuses[0].restartCount}"});
    still_monitor = {0, MonitorPid(uid.out), ""};
    logs_again = Kubectl({"logs", "web"});
    deleted = Kubectl({"delete", "pod", "web", "once", "--timeout=60s"});
    gone = Kubectl({"get", "pods"});
  });
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(after_restart.out, "Running 0") << after_restart.err;
  EXPECT_EQ(still_monitor.out, monitor_pid.out) << "the pod's monitor was replaced";
  EXPECT_EQ(logs_again.out, "hello\n");
  EXPECT_EQ(deleted.out, "pod \"web\" deleted\npod \"once\" deleted\n") << deleted.err;
  EXPECT_EQ(gone.err, "No resources found in default namespace.\n");
  // Nothing of the pods is left: no monitor directory, no logs, no pod state.
  for (const auto& d : {dir_ / "node/pods", dir_ / "node/log/pods", dir_ / "state/pods"}) {
    std::error_code ec;
    EXPECT_TRUE(!fs::exists(d) || fs::is_empty(d, ec)) << d << " is not empty";
  }
  EXPECT_EQ(ReadText("/proc/self/mountinfo").find(dir_.path().string()), std::string::npos);
}

// A pod PID limit given through the API: on a cgroup v2 node (the VM suite) it is the pod
// cgroup's pids.max; on a v1 or hybrid node the node refuses the pod before creating anything,
// and the API says why.
TEST_F(ServePodsTest, PodPidLimitThroughTheApi) {
  constexpr std::string_view kPod = R"(apiVersion: v1
kind: Pod
metadata: {name: limited}
spec:
  dnsPolicy: Default
  resources:
    limits: {pid: "2048"}
  containers:
  - name: app
    image: busybox:latest
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.1; done']
)";
  const bool v2 = fs::exists("/sys/fs/cgroup/cgroup.controllers");
  CommandResult created, waited, status, uid, deleted;
  std::string pids_max;
  Serve([&](pid_t) {
    created = Kubectl({"create", "-f", "-"}, std::string(kPod));
    waited = Kubectl({"wait", v2 ? "--for=condition=Ready" : "--for=jsonpath={.status.phase}=Failed",
                      "pod/limited", "--timeout=60s"});
    status = Kubectl({"get", "pod", "limited", "-o", "jsonpath={.status.reason} {.status.message}"});
    uid = Kubectl({"get", "pod", "limited", "-o", "jsonpath={.metadata.uid}"});
    if (v2) {
      for (const auto& e : fs::recursive_directory_iterator("/sys/fs/cgroup")) {
        if (e.is_directory() && e.path().filename() == "pod" + uid.out) {
          pids_max = ReadText(e.path() / "pids.max");
          break;
        }
      }
    }
    deleted = Kubectl({"delete", "pod", "limited", "--timeout=60s"});
  });
  EXPECT_EQ(created.out, "pod/limited created\n") << created.err;
  EXPECT_EQ(waited.out, "pod/limited condition met\n") << waited.err;
  if (v2) {
    EXPECT_EQ(pids_max, "2048\n");
  } else {
    EXPECT_EQ(status.out,
              "FailedNodeDeclaredFeaturesCheck Pod was rejected: per-pod PID limit requires "
              "cgroupsv2, but this node is running cgroupsv1; pod limited specifies "
              "spec.resources.limits.pid");
  }
  EXPECT_EQ(deleted.out, "pod \"limited\" deleted\n") << deleted.err;
  for (const auto& d : {dir_ / "node/pods", dir_ / "state/pods"}) {
    std::error_code ec;
    EXPECT_TRUE(!fs::exists(d) || fs::is_empty(d, ec)) << d << " is not empty";
  }
}

// Static pods: run from staticPodPath whatever the API says, shown as mirror pods; deleting the
// mirror does not stop the pod (the mirror comes back), removing the manifest does.
TEST_F(ServePodsTest, StaticPodsRunFromTheManifests) {
  fs::create_directories(dir_ / "manifests");
  WriteNodeConfig("staticPodPath: " + (dir_ / "manifests").string() + "\n");
  std::ofstream(dir_ / "manifests/web.yaml") << R"(apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  terminationGracePeriodSeconds: 5
  containers:
  - name: web
    image: busybox:latest
    command: [sh, -c, 'echo static; trap "exit 0" TERM; while true; do sleep 0.1; done']
)";
  CommandResult node, ready, mirror, logs, deleted, back, gone;
  std::string monitor_before, monitor_after, pod;
  Serve([&](pid_t) {
    node = Kubectl({"get", "nodes", "-o", "jsonpath={.items[0].metadata.name}"});
    pod = "web-" + node.out;
    // The mirror appears within a resync.
    for (int i = 0; i < 100; ++i) {
      if (Kubectl({"get", "pod", pod}).exit_code == 0) break;
      ::usleep(100'000);
    }
    ready = Kubectl({"wait", "--for=condition=Ready", "pod/" + pod, "--timeout=60s"});
    mirror = Kubectl({"get", "pod", pod, "-o",
                      "jsonpath={.metadata.annotations.kubernetes\\.io/config\\.mirror} "
                      "{.metadata.ownerReferences[0].kind}"});
    logs = Kubectl({"logs", pod});
    const std::string hash = mirror.out.substr(0, mirror.out.find(' '));
    monitor_before = ReadText(dir_ / "node/pods" / hash / "monitor.lock");
    deleted = Kubectl({"delete", "pod", pod, "--timeout=60s"});
    for (int i = 0; i < 100; ++i) {
      back = Kubectl({"get", "pod", pod, "-o", "jsonpath={.status.phase}"});
      if (back.exit_code == 0 && back.out == "Running") break;
      ::usleep(100'000);
    }
    monitor_after = ReadText(dir_ / "node/pods" / hash / "monitor.lock");
    fs::remove(dir_ / "manifests/web.yaml");
    gone = Kubectl({"wait", "--for=delete", "pod/" + pod, "--timeout=60s"});
    for (int i = 0; i < 100 && fs::exists(dir_ / "node/pods" / hash); ++i) ::usleep(100'000);
  });
  ASSERT_EQ(node.exit_code, 0) << node.err;
  EXPECT_EQ(ready.out, "pod/" + pod + " condition met\n") << ready.err;
  EXPECT_EQ(mirror.out.size(), 32u + 5u) << mirror.out;  // "<hash> Node"
  EXPECT_TRUE(mirror.out.ends_with(" Node")) << mirror.out;
  EXPECT_EQ(logs.out, "static\n") << logs.err;
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(back.out, "Running") << back.err;
  EXPECT_EQ(monitor_after, monitor_before) << "deleting the mirror restarted the static pod";
  EXPECT_EQ(gone.exit_code, 0) << gone.err;
  for (const auto& d : {dir_ / "node/pods", dir_ / "node/log/pods", dir_ / "state/pods"}) {
    std::error_code ec;
    EXPECT_TRUE(!fs::exists(d) || fs::is_empty(d, ec)) << d << " is not empty";
  }
}

}  // namespace
}  // namespace podlimits::testing
