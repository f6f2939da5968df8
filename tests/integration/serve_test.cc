// `podlimits serve` driven by the kubectl installed on the machine, the client it is for.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>


#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
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
      unknown, other_node, metrics;
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
    metrics = RunCommand({kubectl, "--kubeconfig", kubeconfig, "get", "--raw", "/metrics"});
    second = RunCommand({PodlimitsBinary(), "serve", "--data-dir", (dir / "node").string(),
                         "--listen", "127.0.0.1:1"});
    // A second node with the same (default) cgroupRoot would share /kubepods with this one.
    other_node = RunCommand({PodlimitsBinary(), "serve", "--data-dir", (dir / "other").string(),
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
            "NAME                       SHORTNAMES   APIVERSION                 NAMESPACED   KIND\n"
            "configmaps                 cm           v1                         true         ConfigMap\n"
            "events                     ev           v1                         true         Event\n"
            "limitranges                limits       v1                         true         LimitRange\n"
            "namespaces                 ns           v1                         false        Namespace\n"
            "nodes                      no           v1                         false        Node\n"
            "pods                       po           v1                         true         Pod\n"
            "secrets                                 v1                         true         Secret\n"
            "deployments                deploy       apps/v1                    true         Deployment\n"
            "replicasets                rs           apps/v1                    true         ReplicaSet\n"
            "selfsubjectreviews                      authentication.k8s.io/v1   false        SelfSubjectReview\n"
            "selfsubjectaccessreviews                authorization.k8s.io/v1    false        SelfSubjectAccessReview\n"
            "selfsubjectrulesreviews                 authorization.k8s.io/v1    false        SelfSubjectRulesReview\n"
            "cronjobs                   cj           batch/v1                   true         CronJob\n"
            "jobs                                    batch/v1                   true         Job\n"
            "leases                                  coordination.k8s.io/v1     true         Lease\n"
            "nodes                                   metrics.k8s.io/v1beta1     false        NodeMetrics\n"
            "pods                                    metrics.k8s.io/v1beta1     true         PodMetrics\n");
  EXPECT_EQ(anonymous.exit_code, 0) << anonymous.err;
  EXPECT_EQ(anonymous.out,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}");
  // The node's metrics, then the listener's own figures: this scrape's connection at least is
  // open, and nothing was refused by the listener itself (the 401 above is the API's answer).
  EXPECT_EQ(metrics.exit_code, 0) << metrics.err;
  EXPECT_NE(metrics.out.find("\nkubelet_running_pods 0\n"), std::string::npos) << metrics.out;
  const auto open = metrics.out.find("\npodlimits_http_connections_open ");
  ASSERT_NE(open, std::string::npos) << metrics.out;
  EXPECT_GE(std::stoi(metrics.out.substr(open + 33)), 1) << metrics.out;
  for (const char* code : {"400", "413", "429", "431"}) {
    EXPECT_NE(metrics.out.find(std::string("\npodlimits_http_refusals_total{code=\"") + code +
                               "\"} 0\n"),
              std::string::npos)
        << metrics.out;
  }
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
  EXPECT_EQ(other_node.exit_code, 3) << other_node.err;
  EXPECT_NE(other_node.err.find("cgroupRoot \"/\" belongs to the node of " +
                                (dir / "node").string() + ", which is still running"),
            std::string::npos)
      << other_node.err;
  EXPECT_EQ(fs::status(dir / "node/kubeconfig").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

// kubectl pages its lists (kubectl get's --chunk-size, 500 by default) and follows the continue
// tokens; a raw list with limit=1 is one item and a token. Then serve starts again on another
// port, and the same kubeconfig reaches it there.
TEST(ServeTest, PagedListsAndAKubeconfigThatFollowsListen) {
  const fs::path kubectl = "/usr/bin/kubectl";
  ASSERT_TRUE(fs::exists(kubectl)) << "these tests drive the machine's kubectl (v1.32)";
  TempDir dir("podlimits-serve");
  const std::string kubeconfig = (dir / "node/kubeconfig").string();
  auto run_kubectl = [&](std::vector<std::string> args, std::string stdin_text = "") {
    args.insert(args.begin(), {kubectl.string(), "--kubeconfig", kubeconfig});
    RunOptions options;
    options.stdin_text = std::move(stdin_text);
    options.timeout = std::chrono::seconds(60);
    return RunCommand(args, options);
  };
  // Five pods bound to another node: stored, listed, never run here.
  std::string pods;
  for (int i = 1; i <= 5; ++i) {
    pods += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p" + std::to_string(i) +
            "}\nspec:\n  nodeName: elsewhere\n  containers: [{name: c, image: busybox:latest}]\n";
  }
  CommandResult created, chunked, raw, after_restart;
  auto serve_on = [&](const std::string& listen, const std::function<void()>& during) {
    RunOptions options;
    options.interrupt_on = "listening on";
    options.signal = SIGTERM;
    options.timeout = std::chrono::seconds(60);
    options.before_signal = [&](pid_t) { during(); };
    return RunCommand(
        {PodlimitsBinary(), "serve", "--data-dir", (dir / "node").string(), "--listen", listen},
        options);
  };
  const std::string first = "127.0.0.1:" + std::to_string(UnusedLoopbackPort());
  auto serve = serve_on(first, [&] {
    created = run_kubectl({"create", "-f", "-"}, pods);
    // -v=6 logs each request: three pages of two.
    chunked = run_kubectl({"get", "pods", "--chunk-size=2", "-v=6"});
    raw = run_kubectl({"get", "--raw", "/api/v1/pods?limit=1"});
  });
  EXPECT_EQ(serve.exit_code, 0) << serve.err;
  EXPECT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(chunked.exit_code, 0) << chunked.err;
  const auto rows = LinesWith(chunked.out, "Pending");
  ASSERT_EQ(rows.size(), 5u) << chunked.out;
  for (int i = 1; i <= 5; ++i) {
    EXPECT_TRUE(rows[i - 1].starts_with("p" + std::to_string(i) + " ")) << chunked.out;
  }
  EXPECT_TRUE(chunked.out.starts_with("NAME   READY   STATUS    RESTARTS   AGE\n")) << chunked.out;
  const auto requests =
      LinesWith(chunked.err, "GET https://" + first + "/api/v1/namespaces/default/pods?");
  ASSERT_EQ(requests.size(), 3u) << chunked.err;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    EXPECT_NE(requests[i].find("limit=2"), std::string::npos) << requests[i];
    EXPECT_EQ(requests[i].find("continue=") != std::string::npos, i > 0) << requests[i];
  }
  EXPECT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_NE(raw.out.find(R"("continue":")"), std::string::npos) << raw.out;
  EXPECT_NE(raw.out.find(R"("remainingItemCount":4})"), std::string::npos) << raw.out;
  std::size_t items = 0;
  for (std::size_t at = raw.out.find(R"({"metadata":{"name":)"); at != std::string::npos;
       at = raw.out.find(R"({"metadata":{"name":)", at + 1)) {
    ++items;
  }
  EXPECT_EQ(items, 1u) << raw.out;

  // Another port: the kubeconfig follows it.
  const std::string second = "127.0.0.1:" + std::to_string(UnusedLoopbackPort());
  ASSERT_NE(first, second);
  serve = serve_on(second, [&] { after_restart = run_kubectl({"get", "pods", "-o", "name"}); });
  EXPECT_EQ(serve.exit_code, 0) << serve.err;
  EXPECT_NE(serve.err.find(kubeconfig + " now points at https://" + second), std::string::npos)
      << serve.err;
  EXPECT_NE(ReadText(kubeconfig).find("    server: https://" + second + "\n"), std::string::npos);
  EXPECT_EQ(after_restart.exit_code, 0) << after_restart.err;
  EXPECT_EQ(after_restart.out, "pod/p1\npod/p2\npod/p3\npod/p4\npod/p5\n");
  EXPECT_EQ(fs::status(kubeconfig).permissions() & fs::perms::all,
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
    std::vector<std::string> argv = InNetns({kubectl_.string(), "--kubeconfig",
                                             (dir_ / "node/kubeconfig").string()});
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options;
    options.stdin_text = std::move(stdin_text);
    options.timeout = std::chrono::seconds(60);
    return RunCommand(argv, options);
  }

  // Runs `serve` until `during` returns, then ends it with `signal`. With `own_netns`, the
  // daemon (and so its pods' monitors and the CNI plugins they run) lives in a network
  // namespace of its own, loopback up, which goes when the test's processes do: what a pod
  // network does to a node (a bridge, ip_forward, iptables rules) never touches the machine's.
  // Kubectl and InNetns then enter it.
  CommandResult Serve(const std::function<void(pid_t)>& during, int signal = SIGTERM,
                      bool own_netns = false) {
    RunOptions options;
    options.interrupt_on = "listening on";
    options.signal = signal;
    options.timeout = std::chrono::seconds(120);
    options.before_signal = [&](pid_t pid) {
      if (own_netns) netns_pid_ = pid;
      during(pid);
      netns_pid_ = 0;
    };
    std::vector<std::string> argv = {PodlimitsBinary(), "serve", "--data-dir",
                                     (dir_ / "node").string(), "--listen", listen_,
                                     "--node-config", (dir_ / "node.yaml").string()};
    argv.insert(argv.end(), serve_args_.begin(), serve_args_.end());
    if (own_netns) {
      argv.insert(argv.begin(), {UtilLinux("unshare"), "--net", "--", "/bin/sh", "-c",
                                 "ip link set lo up && exec \"$0\" \"$@\""});
    }
    return RunCommand(argv, options);
  }

  // util-linux's tool: the machine's, or the one the e2e guest carries.
  static std::string UtilLinux(const std::string& name) {
    const fs::path machine = "/usr/bin/" + name;
    return fs::exists(machine) ? machine.string() : "/e2e/bin/" + name;
  }

  // `argv` run in serve's network namespace when it has one of its own.
  std::vector<std::string> InNetns(std::vector<std::string> argv) const {
    if (netns_pid_ == 0) return argv;
    argv.insert(argv.begin(), {UtilLinux("nsenter"),
                               "--net=/proc/" + std::to_string(netns_pid_) + "/ns/net", "--"});
    return argv;
  }

  // A pod whose one container prints `line` once, then runs until SIGTERM ends it at once.
  static std::string LoopingPod(const std::string& name, const std::string& container,
                                const std::string& line, int grace) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
           "}\nspec:\n  terminationGracePeriodSeconds: " + std::to_string(grace) +
           "\n  containers:\n  - name: " + container +
           "\n    image: busybox:latest\n    command: [sh, -c, 'echo " + line +
           "; trap \"exit 0\" TERM; while true; do sleep 0.1; done']\n";
  }

  std::string MonitorPid(const std::string& uid) {
    return ReadText(dir_ / "node/pods" / uid / "monitor.lock");
  }

  // Kills pod `name`'s monitor with kill -9 and waits for the node agent's next one to have
  // restarted the pod's first app container and made the pod Ready again.
  struct MonitorReplaced {
    std::string first, second;  // the monitors' pids
    CommandResult restarted;    // the wait for restartCount 1
  };
  MonitorReplaced KillMonitorAndWaitForTheNext(const std::string& name, const std::string& uid) {
    MonitorReplaced out;
    out.first = MonitorPid(uid);
    const pid_t pid = static_cast<pid_t>(std::atoll(out.first.c_str()));
    if (pid > 1) ::kill(pid, SIGKILL);
    out.restarted = Kubectl({"wait", "--for=jsonpath={.status.containerStatuses[0].restartCount}=1",
                             "pod/" + name, "--timeout=60s"});
    Kubectl({"wait", "--for=condition=Ready", "pod/" + name, "--timeout=60s"});
    out.second = MonitorPid(uid);
    return out;
  }

  const fs::path kubectl_ = "/usr/bin/kubectl";
  TempDir dir_{"podlimits-serve-pods"};
  std::string listen_;
  pid_t netns_pid_ = 0;  // serve's, while it runs in a network namespace of its own
  std::vector<std::string> serve_args_;  // more flags for Serve
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

// The monitors of this node's pods now running, by pod uid (a pod monitor's arguments name the
// data directory and the uid).
std::map<std::string, std::vector<pid_t>> PodMonitors(const fs::path& data_dir) {
  std::map<std::string, std::vector<pid_t>> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline");
    std::vector<std::string> args;
    for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
    if (args.size() < 2 || args[1] != "pod-monitor") continue;
    std::string dir, uid;
    for (size_t i = 2; i + 1 < args.size(); ++i) {
      if (args[i] == "--data-dir") dir = args[i + 1];
      if (args[i] == "--uid") uid = args[i + 1];
    }
    if (dir == data_dir.string()) out[uid].push_back(std::stoi(name));
  }
  return out;
}

// Restart, as the issue asks: the daemon is killed with kill -9 again and again while pods are
// being created and deleted. Pods that lived through every kill keep their monitor and never
// restart a container; every pod the store has ends up with exactly one monitor and runs its
// container once (one "started" line, restartCount 0, only 0.log); deleted pods go; no monitor
// runs for a pod the store does not have; deleting everything leaves nothing.
TEST_F(ServePodsTest, KillNineAgainAndAgainWhilePodsComeAndGo) {
  auto pod = [](const std::string& name) { return LoopingPod(name, "c", "started", 3); };
  const fs::path data = dir_ / "node";
  std::map<std::string, std::string> keeper_uid, keeper_monitor;  // name -> uid, monitor pid
  std::atomic<bool> stop{false};
  std::atomic<int> created{0}, deleted{0};
  std::thread churn;
  std::mt19937 random(12345);
  auto churn_loop = [&] {
    for (int i = 0; !stop; ++i) {
      if (Kubectl({"create", "-f", "-"}, pod("churn-" + std::to_string(i))).exit_code == 0) {
        ++created;
      }
      // Deleted without waiting: the daemon may be dead; it finishes the job when back.
      if (i >= 2 && Kubectl({"delete", "pod", "churn-" + std::to_string(i - 2), "--wait=false"})
                            .exit_code == 0) {
        ++deleted;
      }
    }
  };
  // The first daemon: two keepers Ready, the churn started, then kill -9.
  Serve(
      [&](pid_t serve) {
        for (const std::string name : {"keeper-a", "keeper-b"}) {
          ASSERT_EQ(Kubectl({"create", "-f", "-"}, pod(name)).exit_code, 0);
        }
        for (const std::string name : {"keeper-a", "keeper-b"}) {
          auto ready = Kubectl({"wait", "--for=condition=Ready", "pod/" + name, "--timeout=60s"});
          ASSERT_EQ(ready.exit_code, 0) << ready.err;
          keeper_uid[name] = Kubectl({"get", "pod", name, "-o", "jsonpath={.metadata.uid}"}).out;
          keeper_monitor[name] = MonitorPid(keeper_uid[name]);
        }
        churn = std::thread(churn_loop);
        for (int i = 0; i < 300 && created.load() == 0; ++i) ::usleep(100'000);
        ::usleep(1'500'000);
        ::kill(serve, SIGKILL);
      },
      SIGKILL);
  ASSERT_EQ(keeper_uid.size(), 2u);
  // Killed again at random points, the churn going on through every restart. Each daemon lives
  // until the churn created a pod through it (up to 30 s): on a slow machine (the TCG guest
  // beside a loaded host) a fixed time let the churn hardly run.
  constexpr int kKills = 4;
  for (int k = 1; k < kKills; ++k) {
    Serve(
        [&](pid_t serve) {
          const int before = created.load();
          for (int i = 0; i < 300 && created.load() == before; ++i) ::usleep(100'000);
          ::usleep(std::uniform_int_distribution<int>(300'000, 2'000'000)(random));
          ::kill(serve, SIGKILL);
        },
        SIGKILL);
  }
  // The last daemon: the churn stops, everything settles, then is checked and deleted.
  std::vector<std::string> problems;
  CommandResult delete_all;
  std::map<std::string, std::vector<pid_t>> monitors_after_delete;
  auto final_serve = Serve([&](pid_t) {
    stop = true;
    if (churn.joinable()) churn.join();
    auto listed = Kubectl({"get", "pods", "-o",
                           "jsonpath={range .items[*]}{.metadata.name} {.metadata.uid} "
                           "{.metadata.deletionTimestamp}{\"\\n\"}{end}"});
    std::map<std::string, std::string> live;  // name -> uid, of the pods not being deleted
    std::istringstream lines(listed.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream fields(line);
      std::string name, uid, deleting;
      fields >> name >> uid >> deleting;
      if (name.empty()) continue;
      if (deleting.empty()) {
        live[name] = uid;
      } else {
        auto gone = Kubectl({"wait", "--for=delete", "pod/" + name, "--timeout=60s"});
        if (gone.exit_code != 0) problems.push_back(name + " was not deleted: " + gone.err);
      }
    }
    for (const auto& [name, uid] : live) {
      auto ready = Kubectl({"wait", "--for=condition=Ready", "pod/" + name, "--timeout=60s"});
      if (ready.exit_code != 0) problems.push_back(name + " not Ready: " + ready.err);
    }
    // What the node must come to once the agent has swept what the kills interrupted (orphan
    // monitors, directories): looked at until it holds, for at most 30 s.
    auto check = [&] {
      std::vector<std::string> found;
      auto monitors = PodMonitors(data);
      for (const auto& [name, uid] : live) {
        auto restarts = Kubectl({"get", "pod", name, "-o",
                                 "jsonpath={.status.containerStatuses[0].restartCount}"});
        if (restarts.out != "0") found.push_back(name + ": restartCount " + restarts.out);
        if (monitors[uid].size() != 1) {
          found.push_back(name + ": " + std::to_string(monitors[uid].size()) + " monitors");
        }
        const fs::path logs = data / "log/pods" / ("default_" + name + "_" + uid) / "c";
        std::vector<std::string> files;
        std::error_code ec;
        for (const auto& f : fs::directory_iterator(logs, ec)) files.push_back(f.path().filename());
        if (files != std::vector<std::string>{"0.log"}) {
          found.push_back(name + ": log files " + std::to_string(files.size()));
        }
        const auto started = LinesWith(ReadText(logs / "0.log"), " stdout F started");
        if (started.size() != 1) {
          found.push_back(name + " started " + std::to_string(started.size()) + " times");
        }
      }
      for (const auto& [uid, pids] : monitors) {
        bool known = false;
        for (const auto& [name, u] : live) known = known || u == uid;
        if (!known) found.push_back("a monitor runs for a pod the store lacks: " + uid);
      }
      for (const auto& [name, uid] : keeper_uid) {
        if (live[name] != uid) found.push_back(name + " is gone or was replaced");
        if (MonitorPid(uid) != keeper_monitor[name]) found.push_back(name + ": monitor replaced");
      }
      return found;
    };
    std::vector<std::string> found = check();
    for (int i = 0; i < 60 && !found.empty(); ++i) {
      ::usleep(500'000);
      found = check();
    }
    problems.insert(problems.end(), found.begin(), found.end());
    delete_all = Kubectl({"delete", "pods", "--all", "--timeout=120s"});
    monitors_after_delete = PodMonitors(data);
    for (int i = 0; i < 50 && !monitors_after_delete.empty(); ++i) {
      ::usleep(100'000);
      monitors_after_delete = PodMonitors(data);
    }
  });
  EXPECT_EQ(final_serve.exit_code, 0) << final_serve.err;
  std::fprintf(stderr, "churn across %d kill -9: %d pods created, %d deleted\n", kKills,
               created.load(), deleted.load());
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
  EXPECT_GT(created.load(), 3) << "the churn hardly ran";
  EXPECT_GT(deleted.load(), 1) << "the churn hardly deleted";
  EXPECT_EQ(delete_all.exit_code, 0) << delete_all.err;
  EXPECT_TRUE(monitors_after_delete.empty()) << monitors_after_delete.size() << " monitors left";
  for (const auto& d : {data / "pods", data / "log/pods", dir_ / "state/pods"}) {
    std::error_code ec;
    std::string left;  // what is there, to tell which pod's leftovers they are
    for (const auto& e : fs::directory_iterator(d, ec)) left += " " + e.path().filename().string();
    EXPECT_TRUE(!fs::exists(d) || fs::is_empty(d, ec)) << d << " is not empty:" << left;
  }
  EXPECT_EQ(ReadText("/proc/self/mountinfo").find(dir_.path().string()), std::string::npos);
}

// A pod's monitor killed with kill -9 loses its containers (it is their parent and subreaper, as
// conmon is): the node agent starts a new monitor, which removes them and goes on as the kubelet
// does when the runtime lost a running container: restartCount 1, lastState terminated with exit
// code 137 and ContainerStatusUnknown, the new run's log in 1.log (`logs --previous` reads 0.log).
TEST_F(ServePodsTest, AKilledMonitorIsALostContainerRestarted) {
  const std::string kPod = LoopingPod("web", "web", "started", 5);
  CommandResult created, ready, uid, restarted, last_state, logs, previous, deleted;
  std::string first_monitor, second_monitor;
  Serve([&](pid_t) {
    created = Kubectl({"create", "-f", "-"}, kPod);
    ready = Kubectl({"wait", "--for=condition=Ready", "pod/web", "--timeout=60s"});
    uid = Kubectl({"get", "pod", "web", "-o", "jsonpath={.metadata.uid}"});
    MonitorReplaced replaced = KillMonitorAndWaitForTheNext("web", uid.out);
    first_monitor = replaced.first;
    second_monitor = replaced.second;
    restarted = replaced.restarted;
    last_state = Kubectl({"get", "pod", "web", "-o",
                          "jsonpath={.status.containerStatuses[0].lastState.terminated.exitCode} "
                          "{.status.containerStatuses[0].lastState.terminated.reason}"});
    logs = Kubectl({"logs", "web"});
    previous = Kubectl({"logs", "web", "--previous"});
    deleted = Kubectl({"delete", "pod", "web", "--timeout=60s"});
  });
  EXPECT_EQ(created.out, "pod/web created\n") << created.err;
  EXPECT_EQ(ready.out, "pod/web condition met\n") << ready.err;
  EXPECT_EQ(restarted.out, "pod/web condition met\n") << restarted.err;
  EXPECT_NE(second_monitor, first_monitor) << "no new monitor";
  EXPECT_EQ(last_state.out, "137 ContainerStatusUnknown") << last_state.err;
  EXPECT_EQ(logs.out, "started\n") << logs.err;
  EXPECT_EQ(previous.out, "started\n") << previous.err;
  EXPECT_EQ(deleted.out, "pod \"web\" deleted\n") << deleted.err;
  for (const auto& d : {dir_ / "node/pods", dir_ / "node/log/pods", dir_ / "state/pods"}) {
    std::error_code ec;
    EXPECT_TRUE(!fs::exists(d) || fs::is_empty(d, ec)) << d << " is not empty";
  }
}

// The ephemeral containers of a pod whose monitor is killed with kill -9: the new monitor reads
// them from pod.json and their statuses from the last published status, and restarts none (the
// kubelet's computePodActions): the one that was running is terminated with exit code 137 and
// ContainerStatusUnknown, the one that had exited keeps its exit code, both keep their logs,
// while the app container is restarted as restartPolicy says. The lost one's processes and
// runtime state are gone, and nothing is left once the pod is deleted.
TEST_F(ServePodsTest, AKilledMonitorDoesNotRestartEphemeralContainers) {
  const std::string kKeep =
      R"({"spec":{"ephemeralContainers":[{"name":"keep","image":"busybox:latest",)"
      R"("command":["sh","-c","echo kept; trap 'exit 0' TERM; while true; do sleep 0.1; done"]}]}})";
  const std::string kOnce =
      R"({"spec":{"ephemeralContainers":[{"name":"once","image":"busybox:latest",)"
      R"("command":["sh","-c","echo once; exit 3"]}]}})";
  const std::string kStates =
      "jsonpath={range .status.ephemeralContainerStatuses[*]}{.name}:"
      "{.state.running.startedAt}{.state.terminated.exitCode} {.state.terminated.reason}/"
      "{.restartCount} {end}";
  CommandResult created, ready, keep, once, before, uid, ids, restarted, after, later, app_last,
      keep_logs, once_logs, deleted;
  std::string first_monitor, second_monitor, keep_id;
  bool keep_state_before = false, keep_state_left = true;
  Serve([&](pid_t) {
    created = Kubectl({"create", "-f", "-"}, LoopingPod("dbgk", "app", "up", 5));
    ready = Kubectl({"wait", "--for=condition=Ready", "pod/dbgk", "--timeout=60s"});
    keep = Kubectl({"patch", "pod", "dbgk", "--subresource=ephemeralcontainers",
                    "--type=strategic", "-p", kKeep});
    once = Kubectl({"patch", "pod", "dbgk", "--subresource=ephemeralcontainers",
                    "--type=strategic", "-p", kOnce});
    for (int i = 0; i < 300; ++i) {
      before = Kubectl({"get", "pod", "dbgk", "-o", kStates});
      if (before.out.starts_with("keep:2") && before.out.find("once:3 Error/0") != std::string::npos) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    uid = Kubectl({"get", "pod", "dbgk", "-o", "jsonpath={.metadata.uid}"});
    ids = Kubectl({"get", "pod", "dbgk", "-o",
                   "jsonpath={.status.ephemeralContainerStatuses[0].containerID}"});
    keep_id = ids.out.substr(ids.out.find("://") == std::string::npos ? 0 : ids.out.find("://") + 3);
    keep_state_before = !keep_id.empty() && fs::exists(dir_ / "state/runtime/crun" / keep_id);
    MonitorReplaced replaced = KillMonitorAndWaitForTheNext("dbgk", uid.out);
    first_monitor = replaced.first;
    second_monitor = replaced.second;
    restarted = replaced.restarted;
    after = Kubectl({"get", "pod", "dbgk", "-o", kStates});
    // What the node does not start again stays down.
    std::this_thread::sleep_for(std::chrono::seconds(3));
    later = Kubectl({"get", "pod", "dbgk", "-o", kStates});
    // The new monitor deleted the lost container from the runtime (its record names it).
    keep_state_left = !keep_id.empty() && fs::exists(dir_ / "state/runtime/crun" / keep_id);
    app_last = Kubectl({"get", "pod", "dbgk", "-o",
                        "jsonpath={.status.containerStatuses[0].lastState.terminated.exitCode} "
                        "{.status.containerStatuses[0].lastState.terminated.reason}"});
    keep_logs = Kubectl({"logs", "dbgk", "-c", "keep"});
    once_logs = Kubectl({"logs", "dbgk", "-c", "once"});
    deleted = Kubectl({"delete", "pod", "dbgk", "--timeout=60s"});
  });
  ASSERT_EQ(created.out, "pod/dbgk created\n") << created.err;
  ASSERT_EQ(ready.out, "pod/dbgk condition met\n") << ready.err;
  EXPECT_EQ(keep.out, "pod/dbgk patched\n") << keep.err;
  EXPECT_EQ(once.out, "pod/dbgk patched\n") << once.err;
  EXPECT_TRUE(before.out.starts_with("keep:2")) << before.out;
  EXPECT_NE(before.out.find("once:3 Error/0"), std::string::npos) << before.out;
  EXPECT_FALSE(keep_id.empty()) << ids.out << ids.err;
  EXPECT_EQ(restarted.out, "pod/dbgk condition met\n") << restarted.err;
  EXPECT_NE(second_monitor, first_monitor) << "no new monitor";
  EXPECT_EQ(after.out, "keep:137 ContainerStatusUnknown/0 once:3 Error/0 ") << after.err;
  EXPECT_EQ(later.out, after.out) << "ephemeral containers are never restarted";
  EXPECT_TRUE(keep_state_before) << "crun's state of the running container " << keep_id;
  EXPECT_FALSE(keep_state_left) << "the lost ephemeral container's runtime state " << keep_id;
  EXPECT_EQ(app_last.out, "137 ContainerStatusUnknown") << app_last.err;
  EXPECT_EQ(keep_logs.out, "kept\n") << keep_logs.err;
  EXPECT_EQ(once_logs.out, "once\n") << once_logs.err;
  EXPECT_EQ(deleted.out, "pod \"dbgk\" deleted\n") << deleted.err;
  for (const auto& d : {dir_ / "node/pods", dir_ / "node/log/pods", dir_ / "state/pods"}) {
    std::error_code ec;
    EXPECT_TRUE(!fs::exists(d) || fs::is_empty(d, ec)) << d << " is not empty";
  }
}

// What of a running pod's spec an update may change, the node takes (ValidatePodUpdate, the
// kubelet's computePodActions): `kubectl set image` restarts the container with the new image
// ("definition changed"), an image the node does not have leaves it waiting with
// ErrImageNeverPull, and an activeDeadlineSeconds lowered below how long the pod has run fails
// it with DeadlineExceeded. Nothing is left once it is deleted.
TEST_F(ServePodsTest, ASpecUpdateReachesTheRunningPod) {
  ASSERT_EQ(LoadBusyboxImage(dir_.path(), dir_ / "node/images", "busybox:v2"), "");
  CommandResult created, ready, set_image, restarted, image, killing, missing, waiting, deadline,
      failed, reason, deleted;
  Serve([&](pid_t) {
    created = Kubectl({"create", "-f", "-"}, LoopingPod("web", "app", "up", 1));
    ready = Kubectl({"wait", "--for=condition=Ready", "pod/web", "--timeout=60s"});
    set_image = Kubectl({"set", "image", "pod/web", "app=busybox:v2"});
    restarted = Kubectl({"wait", "--for=jsonpath={.status.containerStatuses[0].restartCount}=1",
                         "pod/web", "--timeout=60s"});
    Kubectl({"wait", "--for=condition=Ready", "pod/web", "--timeout=60s"});
    image = Kubectl({"get", "pod", "web", "-o",
                     "jsonpath={.spec.containers[0].image} {.status.containerStatuses[0].image}"});
    killing = Kubectl({"get", "events", "--field-selector", "involvedObject.name=web,reason=Killing",
                       "-o", "jsonpath={.items[*].message}"});
    missing = Kubectl({"set", "image", "pod/web", "app=busybox:absent"});
    waiting = Kubectl({"wait",
                       "--for=jsonpath={.status.containerStatuses[0].state.waiting.reason}="
                       "ErrImageNeverPull",
                       "pod/web", "--timeout=60s"});
    deadline = Kubectl({"patch", "pod", "web", "-p", R"({"spec":{"activeDeadlineSeconds":1}})"});
    failed = Kubectl({"wait", "--for=jsonpath={.status.phase}=Failed", "pod/web", "--timeout=60s"});
    reason = Kubectl({"get", "pod", "web", "-o", "jsonpath={.status.reason}"});
    deleted = Kubectl({"delete", "pod", "web", "--timeout=60s"});
  });
  EXPECT_EQ(created.out, "pod/web created\n") << created.err;
  EXPECT_EQ(ready.out, "pod/web condition met\n") << ready.err;
  EXPECT_EQ(set_image.out, "pod/web image updated\n") << set_image.err;
  EXPECT_EQ(restarted.out, "pod/web condition met\n") << restarted.err;
  EXPECT_EQ(image.out, "busybox:v2 busybox:v2") << image.err;
  EXPECT_EQ(killing.out, "Container app definition changed, will be restarted") << killing.err;
  EXPECT_EQ(missing.out, "pod/web image updated\n") << missing.err;
  EXPECT_EQ(waiting.out, "pod/web condition met\n") << waiting.err;
  EXPECT_EQ(deadline.out, "pod/web patched\n") << deadline.err;
  EXPECT_EQ(failed.out, "pod/web condition met\n") << failed.err;
  EXPECT_EQ(reason.out, "DeadlineExceeded") << reason.err;
  EXPECT_EQ(deleted.out, "pod \"web\" deleted\n") << deleted.err;
  for (const auto& d : {dir_ / "node/pods", dir_ / "node/log/pods", dir_ / "state/pods"}) {
    std::error_code ec;
    EXPECT_TRUE(!fs::exists(d) || fs::is_empty(d, ec)) << d << " is not empty";
  }
}

// A pod PID limit given through the API: on a cgroup v2 node (the VM suite) it is the pod
// cgroup's pids.max; a v1 or hybrid node does not declare PerPodPIDLimit, so the scheduler leaves
// the pod Pending with its reason (seed 001) and nothing is created; the node's admission, which
// refused such a pod once bound, stays behind it (tests/e2e pid-v1-rejected, run_pod_test).
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
    waited = Kubectl({"wait", v2 ? "--for=condition=Ready" : "--for=condition=PodScheduled=False",
                      "pod/limited", "--timeout=60s"});
    status = Kubectl({"get", "pod", "limited", "-o",
                      "jsonpath={.status.phase} {.status.conditions[?(@.type==\"PodScheduled\")].reason}"
                      " {.status.conditions[?(@.type==\"PodScheduled\")].message} {.spec.nodeName}"});
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
              "Pending Unschedulable 0/1 nodes are available: 1 node(s) didn't match Pod's required "
              "features. preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
              "scheduling. ");
  }
  EXPECT_EQ(deleted.out, "pod \"limited\" deleted\n") << deleted.err;
  for (const auto& d : {dir_ / "node/pods", dir_ / "state/pods"}) {
    std::error_code ec;
    EXPECT_TRUE(!fs::exists(d) || fs::is_empty(d, ec)) << d << " is not empty";
  }
}

// The node configuration is the one serve started with: its pods' monitors read serve's
// read-only copy of it (serve/node_config_snapshot.h), never the file again, so an edit while
// serve runs gives a new pod the daemon's podPidsLimit, not the edited one.
TEST_F(ServePodsTest, APodStartedAfterTheNodeConfigIsEditedGetsTheDaemonsPodPidsLimit) {
  // The pod cgroup's pids.max: in the unified tree, or in the v1 pids hierarchy of a hybrid or
  // legacy node.
  const fs::path pids_tree = fs::exists("/sys/fs/cgroup/cgroup.controllers")
                                 ? fs::path("/sys/fs/cgroup")
                                 : fs::path("/sys/fs/cgroup/pids");
  if (!fs::exists(pids_tree / "cgroup.procs")) {
    GTEST_SKIP() << "no pids hierarchy at " << pids_tree;
  }
  WriteNodeConfig("podPidsLimit: 1500\n");
  const std::string loaded = ReadText(dir_ / "node.yaml");
  CommandResult created, waited, uid, deleted;
  std::string pids_max, snapshot;
  fs::perms snapshot_perms{};
  Serve([&](pid_t) {
    WriteNodeConfig("podPidsLimit: 3000\n");
    created = Kubectl({"create", "-f", "-"}, LoopingPod("late", "app", "up", 1));
    waited = Kubectl({"wait", "--for=condition=Ready", "pod/late", "--timeout=60s"});
    uid = Kubectl({"get", "pod", "late", "-o", "jsonpath={.metadata.uid}"});
    for (const auto& e : fs::recursive_directory_iterator(pids_tree)) {
      if (e.is_directory() && e.path().filename() == "pod" + uid.out) {
        pids_max = ReadText(e.path() / "pids.max");
        break;
      }
    }
    snapshot = ReadText(dir_ / "node/node-config.yaml");
    snapshot_perms = fs::status(dir_ / "node/node-config.yaml").permissions();
    deleted = Kubectl({"delete", "pod", "late", "--timeout=60s"});
  });
  EXPECT_EQ(created.out, "pod/late created\n") << created.err;
  EXPECT_EQ(waited.out, "pod/late condition met\n") << waited.err;
  EXPECT_EQ(pids_max, "1500\n");
  EXPECT_EQ(snapshot, loaded);
  EXPECT_EQ(snapshot_perms & fs::perms::all, fs::perms::owner_read);
  EXPECT_EQ(deleted.out, "pod \"late\" deleted\n") << deleted.err;
}

// Static pods: run from staticPodPath whatever the API says, shown as mirror pods; deleting the
// mirror does not stop the pod (the mirror comes back), removing the manifest does.
TEST_F(ServePodsTest, StaticPodsRunFromTheManifests) {
  fs::create_directories(dir_ / "manifests");
  WriteNodeConfig("staticPodPath: " + (dir_ / "manifests").string() + "\n");
  std::ofstream(dir_ / "manifests/web.yaml") << LoopingPod("web", "web", "static", 5);
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
                      "{.metadata.ownerReferences[0].kind} {.metadata.managedFields[0].manager}"});
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
  // "<hash> Node kubelet": the mirror pod is the kubelet's write.
  EXPECT_EQ(mirror.out.size(), 32u + 5u + 8u) << mirror.out;
  EXPECT_TRUE(mirror.out.ends_with(" Node kubelet")) << mirror.out;
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

namespace podlimits::testing {
namespace {

// min(pid_max, threads-max) minus the tasks of /proc/loadavg: pid.available as the kubelet
// computes it, now.
std::int64_t PidAvailableNow() {
  auto read = [](const char* file) { return std::stoll(ReadText(file)); };
  const std::int64_t capacity =
      std::min(read("/proc/sys/kernel/pid_max"), read("/proc/sys/kernel/threads-max"));
  std::istringstream loadavg(ReadText("/proc/loadavg"));
  std::string a, b, c, tasks;
  loadavg >> a >> b >> c >> tasks;
  return capacity - std::stoll(tasks.substr(tasks.find('/') + 1));
}

// Seed 002's node that defends itself: a fork bomb in a pod whose own limit (podPidsLimit) is
// far above what the node can spare. The threshold is set 600 tasks below what is available
// when the test starts, so the bomb (bounded at 1500 by its pod cgroup, so that this shared
// machine never runs out; 800 and 300 on a machine under 4 GiB) puts the node under PIDPressure; the bomb is evicted, its neighbour
// keeps running, new pods are refused while the pressure holds and start in their normal time
// once it clears. The e2e guest runs it on cgroup v2 (tests/e2e/tests/integration-v2.sh).
TEST_F(ServePodsTest, PidPressureEvictsTheForkBombNotItsNeighbour) {
  // A small machine (the 1 GiB e2e guest) gets a smaller bomb: its memory, not its pid_max,
  // bounds how many shells may fork. What is
  // available is read once the machine is still: the teardown of the test before (hundreds of
  // tasks going away) must not set the threshold (it once put the threshold so low that the
  // bomb hardly crossed it).
  std::int64_t available = PidAvailableNow();
  for (int i = 0; i < 50; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const std::int64_t now = PidAvailableNow();
    const bool still = std::abs(now - available) < 20;
    available = std::max(available, now);
    if (still && i >= 4) break;
  }
  std::istringstream meminfo(ReadText("/proc/meminfo"));
  std::string key;
  long long mem_kb = 0;
  meminfo >> key >> mem_kb;  // "MemTotal: N kB" comes first
  const bool small = mem_kb < 4LL * 1024 * 1024;
  const std::int64_t threshold = available - (small ? 300 : 600);
  ASSERT_GT(threshold, 1000);
  std::printf("pid.available %lld when the test starts, threshold %lld\n",
              static_cast<long long>(available), static_cast<long long>(threshold));
  WriteNodeConfig("podPidsLimit: " + std::string(small ? "800" : "1500") +
                  "\nevictionHard: {pid.available: \"" + std::to_string(threshold) +
                  "\"}\nevictionPressureTransitionPeriod: 10s\n");
  constexpr std::string_view kBomb = R"(apiVersion: v1
kind: Pod
metadata: {name: bomb}
spec:
  terminationGracePeriodSeconds: 30
  containers:
  - name: bomb
    image: busybox:latest
    command: [sh, -c, 'f() { f & f & wait; }; f']
)";
  auto pod_yaml = [](const std::string& name, bool tolerate) {
    std::string yaml = LoopingPod(name, "app", "up", 1);
    if (tolerate) {
      yaml += "  tolerations:\n  - {key: node.kubernetes.io/pid-pressure, operator: Exists, "
              "effect: NoSchedule}\n";
    }
    return yaml;
  };
  auto seconds_to_ready = [&](const std::string& name) {
    const auto start = std::chrono::steady_clock::now();
    auto created = Kubectl({"create", "-f", "-"}, pod_yaml(name, false));
    auto ready = Kubectl({"wait", "--for=condition=Ready", "pod/" + name, "--timeout=60s"});
    EXPECT_EQ(ready.exit_code, 0) << created.err << ready.err;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  CommandResult neighbour, evicted, bomb_status, condition, node_during, tolerant, plain_pending,
      plain_ready, events, node_events, neighbour_after, metrics, deleted;
  double normal = 0, after = 0;
  bool pressure_seen = false, bomb_cgroup_gone = false;
  std::string bomb_uid;
  auto serve = Serve([&](pid_t) {
    neighbour = Kubectl({"create", "-f", "-"}, pod_yaml("neighbour", false));
    Kubectl({"wait", "--for=condition=Ready", "pod/neighbour", "--timeout=60s"});
    normal = seconds_to_ready("before");
    Kubectl({"delete", "pod", "before", "--timeout=60s"});

    Kubectl({"create", "-f", "-"}, std::string(kBomb));
    bomb_uid = Kubectl({"get", "pod", "bomb", "-o", "jsonpath={.metadata.uid}"}).out;
    // The node answers while the bomb grows, and reports the pressure.
    for (int i = 0; i < 300 && !pressure_seen; ++i) {
      condition = Kubectl({"get", "node", "-o",
                           "jsonpath={.items[0].status.conditions[?(@.type==\"PIDPressure\")]"
                           ".status}"});
      pressure_seen = condition.out == "True";
      if (!pressure_seen) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // The node lifecycle controller's taint follows the condition (at the next resync).
    for (int i = 0; i < 50; ++i) {
      node_during = Kubectl({"get", "node", "-o", "jsonpath={.items[0].spec.taints}"});
      if (node_during.out.find("pid-pressure") != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    evicted = Kubectl({"wait", "--for=jsonpath={.status.reason}=Evicted", "pod/bomb",
                       "--timeout=60s"});
    // Still within the transition period: a pod that tolerates the taint reaches the kubelet's
    // admission and is refused; one that does not stays Pending.
    tolerant = Kubectl({"create", "-f", "-"}, pod_yaml("tolerant", true));
    Kubectl({"wait", "--for=jsonpath={.status.phase}=Failed", "pod/tolerant", "--timeout=30s"});
    tolerant = Kubectl({"get", "pod", "tolerant", "-o",
                        "jsonpath={.status.phase} {.status.reason} {.status.message}"});
    Kubectl({"create", "-f", "-"}, pod_yaml("plain", false));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    plain_pending = Kubectl({"get", "pod", "plain", "-o",
                             "jsonpath={.status.phase} {.status.conditions[0].message}"});
    // Pressure clears after the transition period; the pending pod is scheduled and runs.
    plain_ready = Kubectl({"wait", "--for=condition=Ready", "pod/plain", "--timeout=60s"});
    after = seconds_to_ready("after");
    bomb_status = Kubectl({"get", "pod", "bomb", "-o",
                           "jsonpath={.status.phase}|{.status.message}|"
                           "{.status.conditions[?(@.type==\"DisruptionTarget\")].reason}"});
    bomb_cgroup_gone = true;
    for (const auto& root : {fs::path("/sys/fs/cgroup/pids"), fs::path("/sys/fs/cgroup")}) {
      std::error_code ec;
      for (auto it = fs::recursive_directory_iterator(root, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->path().filename() == "pod" + bomb_uid) bomb_cgroup_gone = false;
      }
      if (fs::exists(root / "cgroup.controllers") || fs::exists(root / "pids.max")) break;
    }
    events = Kubectl({"get", "events", "--field-selector", "involvedObject.name=bomb", "-o",
                      "jsonpath={range .items[*]}{.reason}: {.message}{\"\\n\"}{end}"});
    node_events = Kubectl({"get", "events", "-n", "default", "--field-selector",
                           "involvedObject.kind=Node", "-o",
                           "jsonpath={range .items[*]}{.reason}{\"\\n\"}{end}"});
    neighbour_after = Kubectl({"get", "pod", "neighbour", "-o",
                               "jsonpath={.status.phase} {.status.containerStatuses[0].restartCount}"});
    metrics = Kubectl({"get", "--raw", "/metrics"});
    deleted = Kubectl({"delete", "pod", "--all", "--timeout=60s"});
  });
  EXPECT_EQ(serve.exit_code, 0) << serve.err;
  EXPECT_TRUE(pressure_seen) << condition.out << condition.err;
  EXPECT_NE(node_during.out.find("node.kubernetes.io/pid-pressure"), std::string::npos)
      << node_during.out;
  EXPECT_EQ(evicted.exit_code, 0) << evicted.err << serve.err;
  const std::string prefix = "Failed|The node was low on resource: pids. Threshold quantity: ";
  EXPECT_TRUE(bomb_status.out.starts_with(prefix)) << bomb_status.out;
  EXPECT_TRUE(bomb_status.out.ends_with(". |TerminationByKubelet")) << bomb_status.out;
  EXPECT_TRUE(bomb_cgroup_gone) << "pod" << bomb_uid;
  EXPECT_NE(events.out.find("Evicted: The node was low on resource: pids. Threshold quantity: "),
            std::string::npos)
      << events.out;
  EXPECT_EQ(tolerant.out, "Failed Evicted The node had condition: [PIDPressure]. ");
  EXPECT_TRUE(plain_pending.out.starts_with(
      "Pending 0/1 nodes are available: 1 node(s) had untolerated taint "
      "{node.kubernetes.io/pid-pressure: }."))
      << plain_pending.out;
  EXPECT_EQ(plain_ready.exit_code, 0) << plain_ready.err;
  for (const char* reason : {"NodeHasSufficientPID", "NodeHasInsufficientPID",
                             "EvictionThresholdMet"}) {
    EXPECT_NE(node_events.out.find(reason), std::string::npos) << node_events.out;
  }
  EXPECT_EQ(neighbour_after.out, "Running 0") << "the neighbour was not touched";
  EXPECT_NE(metrics.out.find("kubelet_evictions{eviction_signal=\"pid.available\"} 1\n"),
            std::string::npos)
      << metrics.out;
  EXPECT_NE(metrics.out.find("podlimits_pod_pids_max{namespace=\"default\",pod=\"neighbour\""),
            std::string::npos);
  // Once the pressure clears a pod starts as fast as before (twice its time at most; a second
  // of slack for a start that takes a few hundred milliseconds on a shared machine).
  std::printf("pod start before the bomb %.2f s, after the pressure cleared %.2f s\n", normal,
              after);
  EXPECT_LE(after, std::max(2 * normal, normal + 1.0));
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
}

// `kubectl exec` (WebSocket v5.channel.k8s.io): the exec'd process has the container's ulimits
// and cgroup (so the pod's pids.max counts it), stdout, stderr, stdin and exit codes reach
// kubectl, a terminal works, errors are upstream's, and a client that goes away takes its
// command with it.
TEST_F(ServePodsTest, KubectlExecRunsWithTheContainersLimits) {
  constexpr std::string_view kPod = R"(apiVersion: v1
kind: Pod
metadata: {name: shell}
spec:
  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: busybox:latest
    command: [sh, -c, 'cat /proc/self/limits > /tmp/main-limits; cat /proc/self/cgroup > /tmp/main-cgroup; trap "exit 0" TERM; while true; do sleep 0.1; done']
    securityContext:
      ulimits:
      - {name: nofile, soft: 1000, hard: 2000}
      - {name: core, soft: 0, hard: 0}
)";
  CommandResult created, waited, limits, main_limits, cgroup, main_cgroup, failed, input, tty,
      bad_container, no_such, killed_client, after_kill, unread_input, ignored_input, still_there,
      deleted;
  Serve([&](pid_t) {
    created = Kubectl({"create", "-f", "-"}, std::string(kPod));
    waited = Kubectl({"wait", "--for=condition=Ready", "pod/shell", "--timeout=60s"});
    limits = Kubectl({"exec", "shell", "--", "cat", "/proc/self/limits"});
    main_limits = Kubectl({"exec", "shell", "--", "cat", "/tmp/main-limits"});
    cgroup = Kubectl({"exec", "shell", "--", "cat", "/proc/self/cgroup"});
    main_cgroup = Kubectl({"exec", "shell", "--", "cat", "/tmp/main-cgroup"});
    failed = Kubectl({"exec", "shell", "--", "sh", "-c", "echo out; echo err >&2; exit 3"});
    input = Kubectl({"exec", "-i", "shell", "--", "sh", "-c", "cat; echo done"}, "hello\n");
    // More input than the command reads: the pipe's reader goes while kubectl still sends (the
    // daemon once died of SIGPIPE here, exit 141, with every pod left running).
    std::string numbers;
    for (int i = 1; i <= 100000; ++i) numbers += std::to_string(i) + "\n";
    unread_input = Kubectl({"exec", "-i", "shell", "--", "head", "-n", "1"}, numbers);
    ignored_input = Kubectl({"exec", "-i", "shell", "--", "true"}, std::string(200 * 1024, 'x'));
    still_there = Kubectl({"get", "pod", "shell", "-o", "name"});
    // A terminal: kubectl's stdin and stdout must be one, which script(1) gives it.
    RunOptions in_terminal;
    in_terminal.timeout = std::chrono::seconds(60);
    // util-linux's script(1): the machine's, or the one the e2e guest carries.
    const fs::path script = fs::exists("/usr/bin/script") ? "/usr/bin/script" : "/e2e/bin/script";
    tty = RunCommand({script.string(), "-qec",
                      kubectl_.string() + " --kubeconfig " + (dir_ / "node/kubeconfig").string() +
                          " exec -it shell -- sh -c 'tty; echo TERM=$TERM; exit 4'",
                      "/dev/null"},
                     in_terminal);
    bad_container = Kubectl({"exec", "shell", "-c", "nope", "--", "true"});
    no_such = Kubectl({"exec", "shell", "--", "/nosuch"});
    // kubectl killed while its command runs: the command goes too.
    RunOptions short_lived;
    short_lived.timeout = std::chrono::seconds(3);
    killed_client = RunCommand({kubectl_.string(), "--kubeconfig",
                                (dir_ / "node/kubeconfig").string(), "exec", "shell", "--", "sleep",
                                "1234"},
                               short_lived);
    for (int i = 0; i < 50; ++i) {
      after_kill = Kubectl({"exec", "shell", "--", "ps", "-o", "args"});
      if (after_kill.out.find("sleep 1234") == std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    deleted = Kubectl({"delete", "pod", "shell", "--timeout=60s"});
  });
  ASSERT_EQ(created.out, "pod/shell created\n") << created.err;
  ASSERT_EQ(waited.out, "pod/shell condition met\n") << waited.err;

  EXPECT_EQ(limits.exit_code, 0) << limits.err;
  EXPECT_NE(limits.out.find("Max open files            1000                 2000"), std::string::npos)
      << limits.out;
  EXPECT_NE(limits.out.find("Max core file size        0                    0"), std::string::npos)
      << limits.out;
  EXPECT_EQ(limits.out, main_limits.out) << "an exec'd process has the container's rlimits";
  EXPECT_EQ(cgroup.exit_code, 0) << cgroup.err;
  EXPECT_EQ(cgroup.out, main_cgroup.out) << "an exec'd process is in the container's cgroup";

  EXPECT_EQ(failed.exit_code, 3) << failed.err;
  EXPECT_EQ(failed.out, "out\n");
  EXPECT_EQ(failed.err, "err\ncommand terminated with exit code 3\n");
  EXPECT_EQ(input.exit_code, 0) << input.err;
  EXPECT_EQ(input.out, "hello\ndone\n");
  EXPECT_EQ(unread_input.exit_code, 0) << unread_input.err;
  EXPECT_EQ(unread_input.out, "1\n");
  EXPECT_EQ(ignored_input.exit_code, 0) << ignored_input.err;
  EXPECT_EQ(ignored_input.out, "");
  EXPECT_EQ(still_there.out, "pod/shell\n") << "the daemon is gone: " << still_there.err;
  EXPECT_EQ(tty.exit_code, 4) << tty.out << tty.err;
  EXPECT_NE(tty.out.find("/dev/pts/"), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("TERM=xterm"), std::string::npos) << tty.out;

  EXPECT_EQ(bad_container.exit_code, 1);
  EXPECT_EQ(bad_container.err,
            "Error from server (BadRequest): container nope is not valid for pod shell\n");
  EXPECT_NE(no_such.exit_code, 0);
  EXPECT_NE(no_such.err.find("error executing command in container: "), std::string::npos)
      << no_such.err;
  EXPECT_EQ(killed_client.exit_code, -1) << "kubectl should still have been running";
  EXPECT_EQ(after_kill.exit_code, 0) << after_kill.err;
  EXPECT_EQ(after_kill.out.find("sleep 1234"), std::string::npos) << after_kill.out;

  EXPECT_EQ(deleted.out, "pod \"shell\" deleted\n") << deleted.err;
  for (const auto& d : {dir_ / "node/pods", dir_ / "state/pods"}) {
    std::error_code ec;
    EXPECT_TRUE(!fs::exists(d) || fs::is_empty(d, ec)) << d << " is not empty";
  }
}

// Ephemeral containers (pods/ephemeralcontainers, kubectl debug): one added to a running pod
// runs in the pod's cgroup (so under its pids.max) with the rlimits a container gets from its
// own ulimits or, without, the node's defaults exactly as the pod's plain container has them;
// with --target it sees the target's processes; it is never restarted, and its status is in
// status.ephemeralContainerStatuses.
TEST_F(ServePodsTest, EphemeralContainersRunInTheRunningPod) {
  constexpr std::string_view kPod = R"(apiVersion: v1
kind: Pod
metadata: {name: dbgd}
spec:
  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: busybox:latest
    command: [sh, -c, 'trap "exit 0" TERM; while true; do sleep 0.1; done']
    securityContext:
      ulimits: [{name: nofile, soft: 1000, hard: 2000}]
  - name: plain
    image: busybox:latest
    command: [sh, -c, 'cat /proc/self/limits > /tmp/limits; trap "exit 0" TERM; while true; do sleep 0.1; done']
)";
  // An ephemeral container with ulimits of its own, through the subresource as kubectl patch
  // sends it; then one that exits 3 at once.
  const std::string kWithUlimits =
      R"({"spec":{"ephemeralContainers":[{"name":"lim","image":"busybox:latest",)"
      R"("command":["sh","-c","trap 'exit 0' TERM; while true; do sleep 0.1; done"],)"
      R"("securityContext":{"ulimits":[{"name":"nofile","soft":300,"hard":600}]}}]}})";
  const std::string kOnce =
      R"({"spec":{"ephemeralContainers":[{"name":"once","image":"busybox:latest",)"
      R"("command":["sh","-c","exit 3"]}]}})";
  // The node's podPidsLimit is the pod cgroup's pids.max (cgroup v2, or v1's pids hierarchy).
  WriteNodeConfig("podPidsLimit: 300\n");
  CommandResult created, waited, debugged, patched, once, uid, plain_limits, target_ps, logs,
      statuses, too_high, deleted;
  std::map<std::string, std::string> limits, parent, pids_max;
  Serve([&](pid_t) {
    created = Kubectl({"create", "-f", "-"}, std::string(kPod));
    waited = Kubectl({"wait", "--for=condition=Ready", "pod/dbgd", "--timeout=60s"});
    debugged = Kubectl({"debug", "dbgd", "--image=busybox:latest", "--target=app", "-c", "dbg",
                        "--", "sh", "-c",
                        "ps -o pid,args > /tmp/ps; trap 'exit 0' TERM; while true; do sleep 0.1; done"});
    patched = Kubectl({"patch", "pod", "dbgd", "--subresource=ephemeralcontainers",
                       "--type=strategic", "-p", kWithUlimits});
    once = Kubectl({"patch", "pod", "dbgd", "--subresource=ephemeralcontainers",
                    "--type=strategic", "-p", kOnce});
    too_high = Kubectl({"patch", "pod", "dbgd", "--subresource=ephemeralcontainers",
                        "--type=strategic", "-p",
                        R"({"spec":{"ephemeralContainers":[{"name":"big","image":"busybox:latest",)"
                        R"("securityContext":{"ulimits":[{"name":"nofile","soft":1,"hard":1048577}]}}]}})"});
    const std::string running_jsonpath =
        "jsonpath={range .status.ephemeralContainerStatuses[*]}{.name}={.state.running.startedAt}"
        "{.state.terminated.exitCode}/{.restartCount} {end}";
    for (int i = 0; i < 300; ++i) {
      statuses = Kubectl({"get", "pod", "dbgd", "-o", running_jsonpath});
      const bool all = statuses.out.find("dbg=2") != std::string::npos &&
                       statuses.out.find("lim=2") != std::string::npos &&
                       statuses.out.find("once=3/") != std::string::npos;
      if (all) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // What the node does not restart stays down.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    statuses = Kubectl({"get", "pod", "dbgd", "-o",
                        "jsonpath={range .status.ephemeralContainerStatuses[*]}{.name}:"
                        "{.state.terminated.exitCode}/{.restartCount} {end}"});
    uid = Kubectl({"get", "pod", "dbgd", "-o", "jsonpath={.metadata.uid}"});
    const CommandResult ids = Kubectl(
        {"get", "pod", "dbgd", "-o",
         "jsonpath={range .status.ephemeralContainerStatuses[*]}{.name} {.containerID}{\"\\n\"}{end}"});
    std::istringstream lines(ids.out);
    std::string name, id;
    while (lines >> name >> id) {
      id = id.substr(id.find("://") + 3);
      // The container's cgroup in the hierarchy that has pids.max (v2's, or v1's pids).
      for (const auto& e : fs::recursive_directory_iterator("/sys/fs/cgroup")) {
        if (!e.is_directory() || e.path().filename() != id) continue;
        if (!fs::exists(e.path().parent_path() / "pids.max")) continue;
        parent[name] = e.path().parent_path().filename().string();
        pids_max[name] = ReadText(e.path().parent_path() / "pids.max");
        std::istringstream procs(ReadText(e.path() / "cgroup.procs"));
        std::string pid;
        if (procs >> pid) limits[name] = ReadText("/proc/" + pid + "/limits");
        break;
      }
    }
    plain_limits = Kubectl({"exec", "dbgd", "-c", "plain", "--", "cat", "/tmp/limits"});
    target_ps = Kubectl({"exec", "dbgd", "-c", "dbg", "--", "cat", "/tmp/ps"});
    logs = Kubectl({"logs", "dbgd", "-c", "once"});
    deleted = Kubectl({"delete", "pod", "dbgd", "--timeout=60s"});
  });
  ASSERT_EQ(created.out, "pod/dbgd created\n") << created.err;
  ASSERT_EQ(waited.out, "pod/dbgd condition met\n") << waited.err;
  EXPECT_EQ(debugged.exit_code, 0) << debugged.err;
  EXPECT_EQ(patched.out, "pod/dbgd patched\n") << patched.err;
  EXPECT_EQ(once.out, "pod/dbgd patched\n") << once.err;
  EXPECT_EQ(too_high.exit_code, 1);
  EXPECT_EQ(too_high.err,
            "The Pod \"dbgd\" is invalid: spec.ephemeralContainers[3].securityContext.ulimits[0]"
            ".hard: Invalid value: 1048577: must be less than or equal to 1048576 (or -1 for "
            "unlimited)\n");
  EXPECT_EQ(statuses.out, "dbg:/0 lim:/0 once:3/0 ") << "ephemeral containers are never restarted";
  for (const char* c : {"dbg", "lim"}) {
    SCOPED_TRACE(c);
    EXPECT_EQ(parent[c], "pod" + uid.out) << "an ephemeral container is in the pod's cgroup";
    EXPECT_EQ(pids_max[c], "300\n") << "under the pod's pids.max";
  }
  EXPECT_NE(limits["lim"].find("Max open files            300                  600"),
            std::string::npos)
      << limits["lim"];
  EXPECT_EQ(limits["dbg"], plain_limits.out)
      << "without ulimits: the node's defaults, as the plain container has them";
  // The target's PID namespace: the app's shell is there.
  EXPECT_NE(target_ps.out.find("while true; do sleep 0.1; done"), std::string::npos)
      << target_ps.out << target_ps.err;
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_EQ(deleted.out, "pod \"dbgd\" deleted\n") << deleted.err;
  for (const auto& d : {dir_ / "node/pods", dir_ / "state/pods"}) {
    std::error_code ec;
    EXPECT_TRUE(!fs::exists(d) || fs::is_empty(d, ec)) << d << " is not empty";
  }
}

// `kubectl attach`: the container's output from the moment of attaching, stdout and stderr apart,
// until the container exits; input is refused with a message that says why; a pod that has
// ended cannot be attached to.
TEST_F(ServePodsTest, KubectlAttachFollowsTheContainersOutput) {
  constexpr std::string_view kPod = R"(apiVersion: v1
kind: Pod
metadata: {name: talker}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox:latest
    command: [sh, -c, 'i=0; while [ $i -lt 12 ]; do echo out $i; echo err $i >&2; i=$((i+1)); sleep 0.3; done']
)";
  CommandResult created, ready, attached, with_stdin, done, after;
  Serve([&](pid_t) {
    created = Kubectl({"create", "-f", "-"}, std::string(kPod));
    ready = Kubectl({"wait", "--for=condition=Ready", "pod/talker", "--timeout=60s"});
    with_stdin = Kubectl({"attach", "-i", "talker"});
    attached = Kubectl({"attach", "talker"});
    done = Kubectl({"wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/talker",
                    "--timeout=60s"});
    after = Kubectl({"attach", "talker"});
    Kubectl({"delete", "pod", "talker", "--timeout=60s"});
  });
  ASSERT_EQ(created.out, "pod/talker created\n") << created.err;
  ASSERT_EQ(ready.exit_code, 0) << ready.err;
  EXPECT_EQ(with_stdin.exit_code, 1);
  EXPECT_NE(with_stdin.err.find("Error from server (BadRequest): podlimits does not attach to a "
                                "container's input unless it declares stdin: true: the stdin of "
                                "container app is /dev/null"),
            std::string::npos)
      << with_stdin.err;
  // What came after attaching, to the end: the last lines, each on its own stream, and no line
  // from before the attach (the first lines were written before Ready).
  EXPECT_EQ(attached.exit_code, 0) << attached.err;
  EXPECT_TRUE(attached.out.ends_with("out 11\n")) << attached.out;
  EXPECT_EQ(attached.out.find("out 0\n"), std::string::npos) << attached.out;
  EXPECT_EQ(attached.out.find("err"), std::string::npos) << attached.out;
  EXPECT_NE(attached.err.find("err 11\n"), std::string::npos) << attached.err;
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_EQ(after.exit_code, 1);
  // kubectl's own check (the server's, `container not found ("app")`, is a unit test's).
  EXPECT_NE(after.err.find("cannot attach a container in a completed pod"), std::string::npos)
      << after.err;
}

// Input through attach, as `kubectl run` uses it: piped into a container with stdin and
// stdinOnce (`run -i`), whose end of input is the container's end of file, so `cat` ends and
// `--rm` deletes the pod; and typed into a shell on a terminal (`run -it`, kubectl under
// script(1) for a terminal of its own), whose exit code kubectl reports. A container without
// stdin keeps refusing input (KubectlAttachFollowsTheContainersOutput).
TEST_F(ServePodsTest, KubectlRunAttachesInput) {
  CommandResult piped, typed, left;
  Serve([&](pid_t) {
    piped = Kubectl({"run", "-i", "--rm", "--restart=Never", "cat", "--image=busybox:latest",
                     "--", "cat"},
                    "hello through stdin\n");
    // The keystrokes wait in script's terminal until kubectl has attached and reads them.
    const std::string run = kubectl_.string() + " --kubeconfig " +
                            (dir_ / "node/kubeconfig").string() +
                            " run -it --rm --restart=Never shell --image=busybox:latest -- sh";
    typed = RunCommand({"/bin/sh", "-c",
                        "(sleep 3; printf 'echo answer-$((6*7))\\n'; sleep 2; printf 'exit 3\\n'; "
                        "sleep 5) | " + UtilLinux("script") + " -qec \"$0\" /dev/null",
                        run});
    left = Kubectl({"get", "pods", "-o", "name"});
  });
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, "hello through stdin\npod \"cat\" deleted\n") << piped.err;
  EXPECT_EQ(typed.exit_code, 3) << typed.out << typed.err;
  EXPECT_NE(typed.out.find("answer-42"), std::string::npos) << typed.out;
  EXPECT_NE(typed.out.find("pod default/shell terminated (Error)"), std::string::npos) << typed.out;
  EXPECT_EQ(left.out, "") << left.err;
}

// Input for a container that has closed its stdin: the write to it fails, which ends the input
// of that one session (the output goes on until the container ends), never the daemon (it once
// died of SIGPIPE here).
TEST_F(ServePodsTest, AttachingInputToAClosedStdinEndsOnlyThatInput) {
  constexpr std::string_view kPod = R"(apiVersion: v1
kind: Pod
metadata: {name: closer}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox:latest
    stdin: true
    command: [sh, -c, 'exec 0<&-; echo closed; sleep 4; echo bye']
)";
  CommandResult created, ready, attached, still_there;
  Serve([&](pid_t) {
    created = Kubectl({"create", "-f", "-"}, std::string(kPod));
    ready = Kubectl({"wait", "--for=condition=Ready", "pod/closer", "--timeout=60s"});
    attached = Kubectl({"attach", "-i", "closer"}, std::string(200 * 1024, 'x'));
    still_there = Kubectl({"get", "pod", "closer", "-o", "name"});
    Kubectl({"delete", "pod", "closer", "--timeout=60s"});
  });
  ASSERT_EQ(created.out, "pod/closer created\n") << created.err;
  ASSERT_EQ(ready.exit_code, 0) << ready.err;
  EXPECT_EQ(attached.exit_code, 0) << attached.err;
  EXPECT_TRUE(attached.out.ends_with("bye\n")) << attached.out << attached.err;
  EXPECT_EQ(still_there.out, "pod/closer\n") << "the daemon is gone: " << still_there.err;
}

// `kubectl port-forward`, kubectl's SPDY inside a WebSocket: a server the pod binds to its own
// loopback only (so the connection was made in the pod's network namespace) answers, by port
// number and by port name, with a 5 MB body intact and eight connections at once; a port
// nothing listens on gets the kubelet's message, after which kubectl ends. The daemon is left
// with no more descriptors than it had.
TEST_F(ServePodsTest, KubectlPortForwardReachesThePodsLoopback) {
  constexpr std::string_view kPod = R"(apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: busybox:latest
    command: [sh, -c, 'mkdir /www && echo hello from the pod > /www/index.html && head -c 5000000 /dev/urandom > /www/big && exec httpd -f -p 127.0.0.1:8080 -h /www']
    ports: [{name: http, containerPort: 8080}]
    readinessProbe:
      exec: {command: [sh, -c, 'nc 127.0.0.1 8080 </dev/null']}
      periodSeconds: 1
)";
  const int by_number = UnusedLoopbackPort(), by_name = UnusedLoopbackPort(),
            closed = UnusedLoopbackPort();
  CommandResult created, ready, sum, forward;
  CommandResult small, big, many, refused;
  std::size_t fds_before = 0, fds_after = 0;
  auto count_fds = [](pid_t pid) {
    std::size_t n = 0;
    std::error_code ec;
    for (auto it = fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
         !ec && it != fs::directory_iterator(); it.increment(ec)) {
      ++n;
    }
    return n;
  };
  Serve([&](pid_t serve) {
    created = Kubectl({"create", "-f", "-"}, std::string(kPod));
    ready = Kubectl({"wait", "--for=condition=Ready", "pod/web", "--timeout=60s"});
    sum = Kubectl({"exec", "web", "--", "sha256sum", "/www/big"});
    fds_before = count_fds(serve);
    RunOptions options;
    // kubectl's "Forwarding from" lines are on its stdout: sent to stderr, which is watched.
    options.interrupt_on = "-> 9999";
    options.timeout = std::chrono::seconds(60);
    options.before_signal = [&](pid_t kubectl) {
      const std::string url = "http://127.0.0.1:";
      small = RunCommand({"/usr/bin/curl", "-sS", "-m", "10", url + std::to_string(by_number) + "/"});
      big = RunCommand({"/bin/sh", "-c", "/usr/bin/curl -sS -m 20 " + url +
                                             std::to_string(by_name) + "/big | sha256sum"});
      many = RunCommand({"/bin/sh", "-c",
                         "for i in 1 2 3 4 5 6 7 8; do /usr/bin/curl -sS -m 10 " + url +
                             std::to_string(by_number) + "/ & done; wait"});
      refused = RunCommand({"/usr/bin/curl", "-sS", "-m", "10", url + std::to_string(closed) + "/"});
      // kubectl ends by itself after the error: wait for that, not for the signal.
      for (int i = 0; i < 100; ++i) {
        const std::string stat = ReadText("/proc/" + std::to_string(kubectl) + "/stat");
        const std::size_t paren = stat.rfind(')');
        if (paren == std::string::npos || stat.substr(paren + 2, 1) == "Z") break;
        ::usleep(50'000);
      }
    };
    forward = RunCommand({"/bin/sh", "-c", "exec \"$0\" \"$@\" 1>&2", kubectl_.string(),
                          "--kubeconfig", (dir_ / "node/kubeconfig").string(), "port-forward",
                          "pod/web", std::to_string(by_number) + ":8080",
                          std::to_string(by_name) + ":http", std::to_string(closed) + ":9999"},
                         options);
    for (int i = 0; i < 50 && count_fds(serve) > fds_before; ++i) ::usleep(100'000);
    fds_after = count_fds(serve);
    Kubectl({"delete", "pod", "web", "--timeout=60s"});
  });
  ASSERT_EQ(created.exit_code, 0) << created.err;
  ASSERT_EQ(ready.exit_code, 0) << ready.err;
  ASSERT_EQ(sum.exit_code, 0) << sum.err;
  EXPECT_EQ(small.out, "hello from the pod\n") << small.err << forward.err;
  EXPECT_EQ(big.out.substr(0, 64), sum.out.substr(0, 64)) << big.err;
  std::size_t answers = 0;
  for (std::size_t at = 0; (at = many.out.find("hello from the pod", at)) != std::string::npos; ++at) {
    ++answers;
  }
  EXPECT_EQ(answers, 8u) << many.out << many.err;
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(forward.err.find("an error occurred forwarding " + std::to_string(closed) +
                             " -> 9999: error forwarding port 9999 to pod "),
            std::string::npos)
      << forward.err;
  EXPECT_NE(forward.err.find("failed to connect to localhost:9999 inside namespace"),
            std::string::npos)
      << forward.err;
  EXPECT_NE(forward.err.find("dial tcp4 127.0.0.1:9999: connect: connection refused"),
            std::string::npos)
      << forward.err;
  EXPECT_NE(forward.err.find("error: lost connection to pod"), std::string::npos) << forward.err;
  // No forwarded connection's socket stays open in the daemon (its count may also drop: the
  // exec before took descriptors that were still closing).
  EXPECT_LE(fds_after, fds_before);
}

// The addresses host-local has handed out on `network` (its files named by IP).
std::set<std::string> AllocatedIps(const fs::path& data_dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(data_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name != "lock" && !name.starts_with("last_reserved_ip")) out.insert(name);
  }
  return out;
}

// Pods on a CNI network (podNetwork cni, the default network podlimits writes): each gets an
// address from the bridge plugin and host-local, reaches the other pod, is reached from the
// node and through its hostPort, is probed on its address, and has it in /etc/hosts and in
// `get pods -o wide`. A monitor killed with kill -9 leaves an address that its successor gives
// back; deleting the pods gives back every address and portmap rule.
TEST_F(ServePodsTest, PodNetworkThroughCni) {
  std::ofstream(dir_ / "node.yaml")
      << "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
      << "podCIDR: 10.244.0.0/24\n---\n"
      << "apiVersion: podlimits.dev/v1alpha1\nkind: NodeConfiguration\nstateDirectory: "
      << (dir_ / "state").string() << "\npodNetwork:\n  plugin: cni\n  confDir: "
      << (dir_ / "net.d").string() << "\n";
  auto web = [](const std::string& name, const std::string& extra) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
           "}\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n  - name: web\n"
           "    image: busybox:latest\n"
           "    command: [sh, -c, 'mkdir /www && echo hello from " + name +
           " > /www/index.html && exec httpd -f -p 80 -h /www']\n"
           "    readinessProbe:\n      httpGet: {port: 80}\n      periodSeconds: 1\n" + extra;
  };
  const std::string kA = web("a", "    ports:\n    - {containerPort: 80, hostPort: 8080}\n");
  const std::string kB = web("b",
                              "    env:\n    - name: MY_IP\n      valueFrom: {fieldRef: {fieldPath: "
                              "status.podIP}}\n    - name: NODE_IP\n      valueFrom: {fieldRef: "
                              "{fieldPath: status.hostIP}}\n");
  const fs::path ipam = dir_ / "state/cni/networks/podlimits";
  CommandResult created_a, created_b, ready, ips, wide, a_to_b, b_to_a, node_to_a, node_to_b,
      host_port, hosts, env_b, host_ip, uid_b, restarted, ready_again, ip_b_again, deleted, links, rules;
  std::set<std::string> allocated_running, allocated_after_kill;
  Serve(
      [&](pid_t) {
        created_a = Kubectl({"create", "-f", "-"}, kA);
        created_b = Kubectl({"create", "-f", "-"}, kB);
        ready = Kubectl({"wait", "--for=condition=Ready", "pod/a", "pod/b", "--timeout=50s"});
        if (ready.exit_code != 0) {
          ready.err += Kubectl({"describe", "pods"}).out + Kubectl({"get", "events"}).out;
        }
        ips = Kubectl({"get", "pods", "-o",
                       "jsonpath={range .items[*]}{.status.podIP} {.status.podIPs[0].ip}\n{end}"});
        wide = Kubectl({"get", "pods", "-o", "wide"});
        std::istringstream lines(ips.out);
        std::string ip_a, ip_b, skip;
        lines >> ip_a >> skip >> ip_b;
        // busybox nc (its static wget crashes resolving even an address literal).
        auto get = [&](const std::string& pod, const std::string& ip) {
          return Kubectl({"exec", pod, "--", "sh", "-c",
                          "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 5 " + ip + " 80"});
        };
        a_to_b = get("a", ip_b);
        b_to_a = get("b", ip_a);
        RunOptions quick;
        quick.timeout = std::chrono::seconds(20);
        node_to_a = RunCommand(InNetns({"/usr/bin/curl", "-sS", "-m", "5", "http://" + ip_a + "/"}),
                               quick);
        node_to_b = RunCommand(InNetns({"/usr/bin/curl", "-sS", "-m", "5", "http://" + ip_b + "/"}),
                               quick);
        // hostPort 8080 on the node's address on the bridge (portmap's DNAT for local traffic).
        host_port = RunCommand(InNetns({"/usr/bin/curl", "-sS", "-m", "5", "http://10.244.0.1:8080/"}),
                               quick);
        hosts = Kubectl({"exec", "a", "--", "cat", "/etc/hosts"});
        env_b = Kubectl({"exec", "b", "--", "sh", "-c", "echo $MY_IP $NODE_IP"});
        host_ip = Kubectl({"get", "pod", "b", "-o", "jsonpath={.status.hostIP}"});
        allocated_running = AllocatedIps(ipam);
        // b's monitor killed mid-run: its successor cleans up the dead run (the address
        // included) and runs the pod again with an address of its own.
        uid_b = Kubectl({"get", "pod", "b", "-o", "jsonpath={.metadata.uid}"});
        const std::string monitor = MonitorPid(uid_b.out);
        if (!monitor.empty()) ::kill(std::stoi(monitor), SIGKILL);
        restarted = Kubectl({"wait", "--for=jsonpath={.status.containerStatuses[0].restartCount}=1",
                             "pod/b", "--timeout=60s"});
        ready_again = Kubectl({"wait", "--for=condition=Ready", "pod/b", "--timeout=60s"});
        ip_b_again = Kubectl({"get", "pod", "b", "-o", "jsonpath={.status.podIP}"});
        allocated_after_kill = AllocatedIps(ipam);
        deleted = Kubectl({"delete", "pod", "a", "b", "--timeout=60s"});
        links = RunCommand(InNetns({"/bin/sh", "-c", "ip -o link show"}), quick);
        rules = RunCommand(InNetns({"/bin/sh", "-c", "iptables-save -t nat 2>&1 || true"}), quick);
      },
      SIGTERM, /*own_netns=*/true);
  ASSERT_EQ(created_a.out, "pod/a created\n") << created_a.err;
  ASSERT_EQ(created_b.out, "pod/b created\n") << created_b.err;
  ASSERT_EQ(ready.exit_code, 0) << ready.err;
  // Two addresses from podCIDR, podIP equal to podIPs[0].
  std::istringstream lines(ips.out);
  std::string ip_a, ip_a0, ip_b, ip_b0;
  lines >> ip_a >> ip_a0 >> ip_b >> ip_b0;
  EXPECT_TRUE(ip_a.starts_with("10.244.0.") && ip_b.starts_with("10.244.0.")) << ips.out;
  EXPECT_NE(ip_a, ip_b);
  EXPECT_EQ(ip_a, ip_a0);
  EXPECT_EQ(ip_b, ip_b0);
  EXPECT_NE(wide.out.find("IP"), std::string::npos) << wide.out;
  EXPECT_NE(wide.out.find(ip_a), std::string::npos) << wide.out;
  EXPECT_NE(wide.out.find(ip_b), std::string::npos) << wide.out;
  EXPECT_TRUE(a_to_b.out.starts_with("HTTP/1.1 200 OK")) << a_to_b.out << a_to_b.err;
  EXPECT_TRUE(a_to_b.out.ends_with("\r\n\r\nhello from b\n")) << a_to_b.out << a_to_b.err;
  EXPECT_TRUE(b_to_a.out.ends_with("\r\n\r\nhello from a\n")) << b_to_a.out << b_to_a.err;
  EXPECT_EQ(node_to_a.out, "hello from a\n") << node_to_a.err;
  EXPECT_EQ(node_to_b.out, "hello from b\n") << node_to_b.err;
  EXPECT_EQ(host_port.out, "hello from a\n") << host_port.err;
  EXPECT_NE(hosts.out.find(ip_a + "\ta\n"), std::string::npos) << hosts.out;
  // The downward API's status.podIP and status.hostIP.
  EXPECT_FALSE(host_ip.out.empty());
  EXPECT_EQ(env_b.out, ip_b + " " + host_ip.out + "\n") << env_b.err;
  EXPECT_EQ(allocated_running, (std::set<std::string>{ip_a, ip_b}));
  EXPECT_EQ(restarted.exit_code, 0) << restarted.err;
  EXPECT_EQ(ready_again.exit_code, 0) << ready_again.err;
  EXPECT_TRUE(ip_b_again.out.starts_with("10.244.0.")) << ip_b_again.out;
  EXPECT_EQ(allocated_after_kill, (std::set<std::string>{ip_a, ip_b_again.out}))
      << "the killed run's address was given back";
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_TRUE(AllocatedIps(ipam).empty()) << "every address given back";
  // Only loopback and the bridge are left: every pod's veth went with its namespace.
  EXPECT_EQ(links.out.find("veth"), std::string::npos) << links.out;
  EXPECT_NE(links.out.find("podlimits0"), std::string::npos) << links.out;
  // portmap's per-pod chains went with the pods.
  EXPECT_NE(rules.out.find(":CNI-HOSTPORT-DNAT"), std::string::npos) << rules.out;
  EXPECT_EQ(rules.out.find("CNI-DN-"), std::string::npos) << rules.out;
  for (const auto& d : {dir_ / "node/pods", dir_ / "state/pods"}) {
    std::error_code ec;
    EXPECT_TRUE(!fs::exists(d) || fs::is_empty(d, ec)) << d << " is not empty";
  }
  EXPECT_TRUE(fs::exists(dir_ / "net.d/10-podlimits.conflist"));
}

// Issue 29: the store is never silently empty, and a damaged one is refused, never served.

void RemoveStoreFiles(const fs::path& data) {
  for (const char* f : {"state.db", "state.db-wal", "state.db-shm"}) fs::remove(data / f);
}

bool Alive(const std::string& pid) {
  return !pid.empty() && ::kill(static_cast<pid_t>(std::atoll(pid.c_str())), 0) == 0;
}

// Stopped with a pod running, its store removed (then zeroed): serve refuses to start, saying
// what it found and how to go on, and the pod runs on untouched. --reinitialize-store starts the
// node afresh on purpose: the old store kept aside, the objects gone, the pod stopped.
TEST_F(ServePodsTest, ALostStoreIsRefusedAndThePodRunsOn) {
  const fs::path data = dir_ / "node";
  CommandResult created, ready, uid, secret;
  std::string monitor;
  auto first = Serve([&](pid_t) {
    created = Kubectl({"create", "-f", "-"}, LoopingPod("web", "web", "started", 3));
    ready = Kubectl({"wait", "--for=condition=Ready", "pod/web", "--timeout=60s"});
    uid = Kubectl({"get", "pod", "web", "-o", "jsonpath={.metadata.uid}"});
    monitor = MonitorPid(uid.out);
    secret = Kubectl({"create", "secret", "generic", "token", "--from-literal=t=s3cret"});
  });
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(ready.exit_code, 0) << ready.err;
  ASSERT_EQ(secret.exit_code, 0) << secret.err;
  ASSERT_TRUE(Alive(monitor));
  // The store's files are the owner's alone.
  EXPECT_EQ(fs::status(data / "state.db").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  const std::string marker = ReadText(data / "store-id");
  ASSERT_FALSE(marker.empty());
  const fs::path log = data / "log/pods" / ("default_web_" + uid.out) / "web/0.log";
  ASSERT_TRUE(fs::exists(log));

  const std::string db = (data / "state.db").string();
  RemoveStoreFiles(data);
  auto missing = Serve([&](pid_t) { ADD_FAILURE() << "serve started without its store"; });
  ASSERT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_TRUE(missing.err.starts_with("error: refusing to start: the node's store " + db +
                                      " is missing, but " + data.string() +
                                      " held a node: store-id names store "))
      << missing.err;
  EXPECT_NE(missing.err.find("pki/ (its certificates) is there and pods/ holds 1 pod."),
            std::string::npos)
      << missing.err;
  EXPECT_NE(missing.err.find("start serve once with --reinitialize-store"), std::string::npos)
      << missing.err;
  EXPECT_FALSE(fs::exists(data / "state.db")) << "no empty store was made";
  EXPECT_TRUE(Alive(monitor)) << "the pod's monitor was stopped";
  EXPECT_EQ(MonitorPid(uid.out), monitor);
  EXPECT_TRUE(fs::exists(log)) << "the pod's logs were removed";

  WriteText(data / "state.db", "");
  auto zeroed = Serve([&](pid_t) { ADD_FAILURE() << "serve started on a zeroed store"; });
  ASSERT_EQ(zeroed.exit_code, 3) << zeroed.err;
  EXPECT_TRUE(zeroed.err.starts_with("error: refusing to start: the node's store " + db +
                                     " is empty (0 bytes), but "))
      << zeroed.err;
  EXPECT_TRUE(Alive(monitor));
  EXPECT_EQ(fs::file_size(data / "state.db"), 0u);

  // Afresh, on purpose: the node has no objects, and the pod it ran is stopped and removed.
  CommandResult pods, secrets;
  bool pod_gone = false;
  auto afresh = RunCommand(
      {PodlimitsBinary(), "serve", "--data-dir", data.string(), "--listen", listen_,
       "--node-config", (dir_ / "node.yaml").string(), "--reinitialize-store"},
      [&] {
        RunOptions o;
        o.interrupt_on = "listening on";
        o.signal = SIGTERM;
        o.before_signal = [&](pid_t) {
          pods = Kubectl({"get", "pods"});
          secrets = Kubectl({"get", "secrets"});
          for (int i = 0; i < 300 && !pod_gone; ++i) {
            pod_gone = !Alive(monitor) && !fs::exists(data / "pods" / uid.out);
            if (!pod_gone) ::usleep(100'000);
          }
        };
        return o;
      }());
  EXPECT_EQ(afresh.exit_code, 0) << afresh.err;
  EXPECT_NE(afresh.err.find("podlimits serve: --reinitialize-store: the lost store is kept as " +
                            db + ".lost-"),
            std::string::npos)
      << afresh.err;
  EXPECT_EQ(pods.err, "No resources found in default namespace.\n");
  EXPECT_EQ(secrets.err, "No resources found in default namespace.\n");
  EXPECT_TRUE(pod_gone) << "the pod of the old store still runs";
  EXPECT_NE(ReadText(data / "store-id"), marker) << "the marker names the new store";
  std::vector<std::string> kept;
  for (const auto& e : fs::directory_iterator(data)) {
    if (e.path().filename().string().starts_with("state.db.lost-")) kept.push_back(e.path());
  }
  EXPECT_EQ(kept.size(), 1u) << "the zeroed state.db, kept aside";
}

// A backup taken while serve runs and writes, put in place after the store is lost: serve starts
// with every object the backup holds, and adopts the pod that kept running.
TEST_F(ServePodsTest, ABackupTakenWhileServingIsRestored) {
  const fs::path data = dir_ / "node", backup = dir_ / "node.backup";
  constexpr const char* kListing =
      "{range .items[*]}{.kind} {.metadata.namespace}/{.metadata.name} {.metadata.uid}\n{end}";
  CommandResult created, ready, uid, objects_before, backed_up, after_backup;
  std::string monitor;
  Serve([&](pid_t) {
    created = Kubectl({"create", "-f", "-"},
                      "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\n"
                      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: team}\n"
                      "data: {a: \"1\"}\n---\n"
                      "apiVersion: v1\nkind: Secret\nmetadata: {name: token, namespace: team}\n"
                      "stringData: {t: s3cret}\n---\n"
                      "apiVersion: v1\nkind: LimitRange\nmetadata: {name: pids, namespace: team}\n"
                      "spec:\n  limits:\n  - type: Container\n    max: {cpu: \"2\"}\n---\n" +
                          LoopingPod("web", "web", "started", 3));
    ready = Kubectl({"wait", "--for=condition=Ready", "pod/web", "--timeout=60s"});
    uid = Kubectl({"get", "pod", "web", "-o", "jsonpath={.metadata.uid}"});
    monitor = MonitorPid(uid.out);
    objects_before = Kubectl({"get", "namespaces,configmaps,secrets,limitranges,pods", "-A", "-o",
                              std::string("jsonpath=") + kListing});
    backed_up = RunCommand({PodlimitsBinary(), "serve", "backup", "--data-dir", data.string(),
                            backup.string()});
    after_backup = Kubectl({"create", "configmap", "after-backup", "-n", "team"});
  });
  ASSERT_EQ(ready.exit_code, 0) << created.err << ready.err;
  ASSERT_EQ(backed_up.exit_code, 0) << backed_up.err;
  EXPECT_TRUE(backed_up.out.starts_with("backed up ")) << backed_up.out;
  EXPECT_NE(backed_up.out.find(" to " + backup.string() + " ("), std::string::npos)
      << backed_up.out;
  EXPECT_EQ(fs::status(backup).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  ASSERT_EQ(after_backup.exit_code, 0) << after_backup.err;

  // The store lost; the backup put in place as docs/serve.md says.
  RemoveStoreFiles(data);
  fs::copy_file(backup, data / "state.db");
  CommandResult objects_after, phase, logs, deleted;
  std::string adopted_monitor;
  auto restored = Serve([&](pid_t) {
    objects_after = Kubectl({"get", "namespaces,configmaps,secrets,limitranges,pods", "-A", "-o",
                             std::string("jsonpath=") + kListing});
    phase = Kubectl({"get", "pod", "web", "-o",
                     "jsonpath={.status.phase} {.status.containerStatuses[0].restartCount}"});
    adopted_monitor = MonitorPid(uid.out);
    logs = Kubectl({"logs", "web"});
    deleted = Kubectl({"delete", "pod", "web", "--timeout=60s"});
  });
  EXPECT_EQ(restored.exit_code, 0) << restored.err;
  EXPECT_EQ(restored.err.find("store-id"), std::string::npos) << "its own store: no notice\n"
                                                              << restored.err;
  EXPECT_FALSE(objects_before.out.empty());
  EXPECT_EQ(objects_after.out, objects_before.out) << "every object of the backup, none after it";
  EXPECT_EQ(objects_after.out.find("after-backup"), std::string::npos);
  EXPECT_EQ(phase.out, "Running 0") << phase.err;
  EXPECT_EQ(adopted_monitor, monitor) << "the pod was adopted, not restarted";
  EXPECT_EQ(logs.out, "started\n") << logs.err;
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
}

// Garbage in the middle of the file (a bad block, a stray write) is found by quick_check at
// start: serve refuses with the check's first lines, instead of answering every list with
// "database disk image is malformed".
TEST_F(ServePodsTest, ADamagedStoreIsRefusedAtStart) {
  const fs::path data = dir_ / "node";
  std::string many;
  for (int i = 0; i < 400; ++i) {
    many += "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c" + std::to_string(i) +
            "}\ndata: {text: \"" + std::string(500, 'x') + "\"}\n---\n";
  }
  CommandResult created;
  auto first = Serve([&](pid_t) { created = Kubectl({"create", "-f", "-"}, many); });
  ASSERT_EQ(created.exit_code, 0) << created.err;
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_FALSE(fs::exists(data / "state.db-wal")) << "a stopped serve leaves everything in state.db";
  {
    const auto size = fs::file_size(data / "state.db");
    std::string garbage(4096, '\0');
    std::mt19937 random(29);
    for (char& c : garbage) c = static_cast<char>(random());
    std::fstream f(data / "state.db", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 4096 / 2 * 4096));
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  auto damaged = Serve([&](pid_t) { ADD_FAILURE() << "serve started on a damaged store"; });
  EXPECT_EQ(damaged.exit_code, 3) << damaged.err;
  EXPECT_TRUE(damaged.err.starts_with(
      "error: refusing to start: the node's store is damaged: PRAGMA quick_check \"" +
      (data / "state.db").string() + "\": the database is damaged:\n  "))
      << damaged.err;
  EXPECT_NE(damaged.err.find("To restore a backup (podlimits serve backup)"), std::string::npos)
      << damaged.err;
}

// A row whose bytes are damaged: the reads that would send it answer the apiserver's 500 for a
// corrupt object, naming it, instead of a 200 that is not JSON (or a list without it).
TEST_F(ServePodsTest, ACorruptRowIsA500NamingTheObject) {
  const fs::path data = dir_ / "node";
  auto first = Serve([&](pid_t) {
    Kubectl({"create", "namespace", "team"});
    Kubectl({"create", "configmap", "app", "-n", "team", "--from-literal=a=1"});
    Kubectl({"create", "configmap", "zed", "-n", "team", "--from-literal=z=1"});
  });
  ASSERT_EQ(first.exit_code, 0) << first.err;
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((data / "state.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "UPDATE objects SET data = substr(data, 1, 40) WHERE resource = "
                           "'configmaps' AND namespace = 'team' AND name = 'app'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_changes(db), 1);
    sqlite3_close(db);
  }
  CommandResult table, raw, get, zed;
  auto second = Serve([&](pid_t) {
    table = Kubectl({"get", "configmaps", "-n", "team"});
    raw = Kubectl({"get", "--raw", "/api/v1/namespaces/team/configmaps"});
    get = Kubectl({"get", "configmap", "app", "-n", "team", "-o", "json"});
    zed = Kubectl({"get", "configmap", "zed", "-n", "team", "-o", "jsonpath={.data.z}"});
  });
  EXPECT_EQ(second.exit_code, 0) << second.err;
  const std::string message =
      "Internal error occurred: StorageError: corrupt object, Code: 7, Key: "
      "/registry/configmaps/team/app, ResourceVersion: 0, AdditionalErrorMsg: object not "
      "decodable: invalid JSON at byte 40: ";
  for (const auto* r : {&table, &get}) {
    EXPECT_EQ(r->exit_code, 1) << r->out;
    EXPECT_TRUE(r->err.starts_with("Error from server (InternalError): " + message)) << r->err;
  }
  EXPECT_EQ(raw.exit_code, 1) << raw.out;
  EXPECT_NE(raw.err.find(message), std::string::npos) << raw.err;
  EXPECT_EQ(raw.out, "") << "a list that is not JSON went out";
  EXPECT_EQ(zed.out, "1") << zed.err;
}

// `podlimits run` with a node config of its own but serve's cgroupRoot: refused with serve's
// message for a second node, before anything is created (its state directory, the kubepods
// pids.max serve set).
TEST_F(ServePodsTest, RunIsRefusedTheCgroupRootOfARunningServe) {
  std::ofstream(dir_ / "run.yaml")
      << "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
      << "systemReserved: {pid: \"1000\"}\n---\n"
      << "apiVersion: podlimits.dev/v1alpha1\nkind: NodeConfiguration\nstateDirectory: "
      << (dir_ / "run-state").string() << "\n";
  const fs::path kubepods = fs::exists("/sys/fs/cgroup/cgroup.controllers")
                                ? fs::path("/sys/fs/cgroup/kubepods")
                                : fs::path("/sys/fs/cgroup/pids/kubepods");
  CommandResult ready, run, deleted;
  std::string pids_max_before, pids_max_after;
  Serve([&](pid_t) {
    Kubectl({"create", "-f", "-"}, LoopingPod("web", "web", "started", 3));
    ready = Kubectl({"wait", "--for=condition=Ready", "pod/web", "--timeout=60s"});
    pids_max_before = ReadText(kubepods / "pids.max");
    RunOptions input;
    input.stdin_text =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: once}\nspec:\n  restartPolicy: Never\n"
        "  containers:\n  - name: c\n    image: busybox:latest\n    command: [echo, hi]\n";
    run = RunCommand({PodlimitsBinary(), "run", "-f", "-", "--node-config",
                      (dir_ / "run.yaml").string(), "--image-root",
                      (dir_ / "node/images").string()},
                     input);
    pids_max_after = ReadText(kubepods / "pids.max");
    deleted = Kubectl({"delete", "pod", "web", "--timeout=60s"});
  });
  ASSERT_EQ(ready.exit_code, 0) << ready.err;
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  EXPECT_EQ(run.err,
            "error: cgroupRoot \"/\" belongs to the node of " + (dir_ / "node").string() +
                ", which is still running (its serve or its pods): two nodes cannot share "
                "/kubepods, whose pids.max is a node's allocatable; give this node its own "
                "cgroupRoot and stateDirectory in --node-config\n");
  EXPECT_FALSE(pids_max_before.empty());
  EXPECT_EQ(pids_max_after, pids_max_before) << "run rewrote serve's kubepods pids.max";
  EXPECT_FALSE(fs::exists(dir_ / "run-state")) << "run created its state directory";
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
}

// What `podlimits recommend` prints for a pod that opens 800 files and forks 40 processes,
// applied to the pod's manifest, runs the next pod without hitting its limits: nofile from the
// most files one process held (803 with stdio, +50% = 1205), limits.pid where the node enforces
// one (cgroup v2; left out on v1, where the node would refuse the pod).
TEST_F(ServePodsTest, RecommendedLimitsRunTheNextPod) {
  auto manifest = [](const std::string& name) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
           "}\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n  - name: work\n"
           "    image: busybox:latest\n"
           "    command: [sh, -c, 'ulimit -n; i=10; while [ $i -lt 810 ]; do eval \"exec $i</etc/passwd\" "
           "|| exit 1; i=$((i+1)); done; echo opened 800; n=0; while [ $n -lt 40 ]; do sleep 3600 & "
           "n=$((n+1)); done; echo forked 40; trap \"exit 0\" TERM; wait']\n";
  };
  const bool v2 = fs::exists("/sys/fs/cgroup/cgroup.controllers");
  std::ofstream(dir_ / "busy.yaml") << manifest("busy");
  std::ofstream(dir_ / "busy2.yaml") << manifest("busy2");
  serve_args_ = {"--metric-resolution", "1s"};
  auto logs_say = [&](const std::string& pod, const std::string& line) {
    CommandResult logs;
    for (int i = 0; i < 300; ++i) {
      logs = Kubectl({"logs", pod});
      if (logs.out.find(line) != std::string::npos) break;
      ::usleep(100'000);
    }
    return logs;
  };
  CommandResult applied, waited, first_logs, advice, patched, created, waited2, logs2, state2,
      deleted;
  Serve([&](pid_t) {
    applied = Kubectl({"apply", "-f", (dir_ / "busy.yaml").string()});
    waited = Kubectl({"wait", "--for=condition=Ready", "pod/busy", "--timeout=60s"});
    first_logs = logs_say("busy", "forked 40");
    ::sleep(3);  // three samples at --metric-resolution 1s with every process there
    advice = RunCommand({PodlimitsBinary().string(), "recommend", "--kubeconfig",
                         (dir_ / "node/kubeconfig").string(), "busy"});
    patched = Kubectl({"patch", "--local", "-f", (dir_ / "busy2.yaml").string(), "--type=json",
                       "-p", advice.out, "-o", "yaml"});
    created = Kubectl({"create", "-f", "-"}, patched.out);
    waited2 = Kubectl({"wait", "--for=condition=Ready", "pod/busy2", "--timeout=60s"});
    logs2 = logs_say("busy2", "forked 40");
    ::sleep(1);
    state2 = Kubectl({"get", "pod", "busy2", "-o",
                      "jsonpath={.status.phase} {.status.containerStatuses[0].restartCount}"});
    deleted = Kubectl({"delete", "pod", "busy", "busy2", "--timeout=60s"});
  });
  EXPECT_EQ(applied.out, "pod/busy created\n") << applied.err;
  EXPECT_EQ(waited.out, "pod/busy condition met\n") << waited.err;
  EXPECT_NE(first_logs.out.find("opened 800\nforked 40\n"), std::string::npos) << first_logs.out;
  EXPECT_EQ(advice.exit_code, 0) << advice.err;
  EXPECT_NE(advice.err.find("# default/busy: observed for "), std::string::npos) << advice.err;
  EXPECT_NE(advice.err.find("#   nofile 1205 for container work, open files of one process "
                            "(sampled): peak 803 + 50% = 1205\n"),
            std::string::npos)
      << advice.err;
  EXPECT_NE(advice.err.find("the patch is for the manifest kubectl last applied"), std::string::npos);
  const std::string nofile =
      R"({"op":"test","path":"/spec/containers/0/name","value":"work"},)"
      R"({"op":"add","path":"/spec/containers/0/securityContext","value":{"ulimits":[)"
      R"({"name":"nofile","soft":1205,"hard":1205}]}}])";
  if (v2) {
    // 40 sleeps, the shell and what the runtime ran: far below the API's minimum.
    EXPECT_EQ(advice.out, R"([{"op":"add","path":"/spec/resources","value":{"limits":{"pid":"1024"}}},)" +
                              nofile + "\n");
  } else {
    EXPECT_EQ(advice.out, "[" + nofile + "\n");
    EXPECT_NE(advice.err.find("limits.pid left out: the node does not declare PerPodPIDLimit"),
              std::string::npos);
  }
  EXPECT_EQ(patched.exit_code, 0) << patched.err;
  EXPECT_EQ(created.out, "pod/busy2 created\n") << created.err;
  EXPECT_EQ(waited2.out, "pod/busy2 condition met\n") << waited2.err;
  // The new pod's shell has the recommended soft limit, opened its files and forked its
  // processes, and runs on without a restart.
  EXPECT_EQ(logs2.out, "1205\nopened 800\nforked 40\n") << logs2.err;
  EXPECT_EQ(state2.out, "Running 0") << state2.err;
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
}

}  // namespace
}  // namespace podlimits::testing
