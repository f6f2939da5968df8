#include "cli/serve_command.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "apiserver/api_errors.h"
#include "apiserver/api_handler.h"
#include "http/https_server.h"
#include "apiserver/namespace_controller.h"
#include "storage/node_store.h"
#include "apiserver/store_maintenance.h"
#include "storage/object_store.h"
#include "apiserver/pki.h"
#include "apiserver/rest_handler.h"
#include "storage/store_backup.h"
#include "base/fs.h"
#include "base/server_process.h"
#include "printers/human_duration.h"
#include "kubelet/kubelet.h"
#include "kubelet/config/node_config.h"
#include "kubelet/status/node_info.h"
#include "kubelet/status/node_object.h"
#include "kubelet/cm/node_resources.h"
#include "kubelet/cm/pid_capacity.h"
#include "kubelet/cm/pod_process_count.h"
#include "api/go_duration.h"
#include "nodeagent/cgroup_root_claim.h"
#include "nodeagent/node_address.h"
#include "nodeagent/node_agent.h"
#include "nodeagent/pod_monitor.h"
#include "cli/listen_address.h"

namespace podlimits::cli {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitNodeFailure = 3;


bool IsLoopback(const std::string& host) {
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  return host == "::1";
}

// The address kubectl dials for a listener on `host`: the host itself, or for the wildcard
// address (0.0.0.0, ::) loopback of the same family, which it answers on too.
std::string DialAddress(const std::string& host) {
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return v4.s_addr == 0 ? "127.0.0.1" : host;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_UNSPECIFIED(&v6)) return "::1";
  return host;
}

int Fail(const std::string& message, int code = kExitNodeFailure) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return code;
}

std::string PathEnv() {
  const char* path = std::getenv("PATH");
  return path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
}

// What a node keeps under its data directory besides the store and certificates.
std::filesystem::path ImageRoot(const std::filesystem::path& data_dir) { return data_dir / "images"; }
// The node config's podLogsDir, else under the data directory.
std::filesystem::path PodLogsDir(const kubelet::NodeConfig& config,
                                 const std::filesystem::path& data_dir) {
  if (!config.pod_logs_dir.empty()) return config.pod_logs_dir;
  return data_dir / "log" / "pods";
}

}  // namespace

int ServeCommand(const ServeFlags& flags) {
  IgnoreBrokenPipes();
  RaiseOpenFileLimit();
  auto listen = ParseListen(flags.listen);
  if (!listen) {
    return Fail("--listen \"" + flags.listen + "\": want ADDRESS:PORT with an IP address",
                kExitUsage);
  }
  if (!IsLoopback(listen->host) && !flags.listen_beyond_loopback) {
    return Fail("--listen " + flags.listen +
                    " is beyond loopback: the API then reaches other machines; say so with "
                    "--listen-beyond-loopback",
                kExitUsage);
  }
  auto monitoring_period = api::ParseGoDuration(flags.eviction_monitoring_period);
  if (!monitoring_period || monitoring_period->count() <= 0) {
    return Fail("--eviction-monitoring-period \"" + flags.eviction_monitoring_period +
                    "\": " + (monitoring_period ? std::string("must be positive")
                                                 : monitoring_period.error().Message()),
                kExitUsage);
  }
  std::string node_config_path;
  auto config = flags.node_config.empty() ? kubelet::DefaultNodeConfig()
                                          : kubelet::LoadNodeConfig(flags.node_config);
  if (!config) return Fail(config.error().Message(), kExitUsage);
  if (!flags.node_config.empty()) {
    node_config_path = std::filesystem::absolute(flags.node_config).string();
  }
  // The node as the kubelet probes it (the monitors start it for their pods): what its Node
  // object publishes. A node config this machine cannot honour stops serve here.
  kubelet::KubeletOptions kubelet_options{*config, ImageRoot(flags.data_dir), PathEnv(), true};
  kubelet::Kubelet node(std::move(kubelet_options));
  if (auto probed = node.Probe(); !probed) {
    return Fail(probed.error().error.Message(),
                probed.error().kind == kubelet::NodeError::Kind::kConfiguration ? kExitUsage
                                                                                 : kExitNodeFailure);
  }
  std::string token;
  if (!flags.token_file.empty()) {
    auto text = ReadSmallFile(flags.token_file, 4096);
    if (!text) return Fail(text.error().Message(), kExitUsage);
    token = *text;
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
    if (token.empty()) return Fail("--token-file " + flags.token_file + " is empty", kExitUsage);
  }

  const std::filesystem::path data_dir = flags.data_dir;
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec) return Fail("mkdir \"" + data_dir.string() + "\": " + ec.message());
  chmod(data_dir.c_str(), 0700);
  // One node per data directory.
  const std::filesystem::path lock_path = data_dir / "serve.lock";
  int lock = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0) return Fail(ErrnoMessage("open", lock_path.string()));
  if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
    return Fail("another podlimits serve is using " + data_dir.string());
  }
  // One node per cgroup root (cgroup_root_claim.h): a second node on this machine needs its own.
  if (auto claimed = nodeagent::ClaimCgroupRoot(nodeagent::kCgroupRootClaimsDir,
                                                std::filesystem::absolute(data_dir),
                                                config->cgroup_root);
      !claimed) {
    return Fail(claimed.error().Message());
  }

  // The store before the certificates: a data directory whose store is lost still shows the
  // node by its pki/ (storage/node_store.h).
  auto node_store = storage::OpenNodeStore(
      {data_dir, flags.store_integrity_check, flags.reinitialize_store});
  if (!node_store) return Fail(node_store.error().Message());
  for (const auto& notice : node_store->notices) {
    std::fprintf(stderr, "podlimits serve: %s\n", notice.c_str());
  }
  storage::ObjectStore& store = *node_store->store;

  apiserver::PkiOptions pki_options;
  pki_options.data_dir = data_dir;
  // The kubeconfig follows --listen on every start, and the serving certificate names the
  // address it points at (pki.h).
  const std::string dial = DialAddress(listen->host);
  const std::string url_host = dial.find(':') != std::string::npos ? "[" + dial + "]" : dial;
  pki_options.server_url = "https://" + url_host + ":" + std::to_string(listen->port);
  pki_options.ip_addresses.push_back(dial);
  auto pki = apiserver::EnsureNodePki(pki_options);
  if (!pki) return Fail(pki.error().Message());
  if (!pki->created && pki->serving_reissued) {
    std::fprintf(stderr, "podlimits serve: serving certificate issued again to cover %s\n",
                 dial.c_str());
  }
  if (!pki->created && pki->kubeconfig_written) {
    std::fprintf(stderr, "podlimits serve: %s now points at %s\n", pki->kubeconfig.c_str(),
                 pki_options.server_url.c_str());
  }

  // SIGINT and SIGTERM are read here, not delivered: the listener's threads must not get them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  http::HttpsServerOptions options;
  options.address = listen->host;
  options.port = listen->port;
  options.cert_file = pki->serving_cert;
  options.key_file = pki->serving_key;
  options.client_ca_file = pki->ca_cert;
  options.bearer_token = token;
  options.refusal = apiserver::ListenerRefusal;
  // The API's feature gates are the node config's, as for `run` (one machine, one set of gates).
  admission::ChainOptions chain;
  chain.gates = config->feature_gates;
  apiserver::RestHandler rest(store, chain);
  if (auto ns = rest.EnsureSystemNamespaces(); !ns) return Fail(ns.error().error.Message());
  std::error_code exe_error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", exe_error);
  if (exe_error) return Fail("readlink /proc/self/exe: " + exe_error.message());
  nodeagent::NodeAgentOptions agent_options;
  agent_options.data_dir = std::filesystem::absolute(data_dir);
  agent_options.node_name = nodeagent::NodeName();
  agent_options.binary = self;
  agent_options.pod_logs_dir = PodLogsDir(*config, agent_options.data_dir);
  agent_options.monitor_args = {"--host-ip", nodeagent::NodeInternalIp()};
  if (!node_config_path.empty()) {
    agent_options.monitor_args.push_back("--node-config");
    agent_options.monitor_args.push_back(node_config_path);
  }
  const std::string internal_ip = nodeagent::NodeInternalIp();
  const kubelet::HostIdentity host = kubelet::ReadHostIdentity();
  agent_options.node_status = [&node, &host, internal_ip, name = agent_options.node_name](
                                  const api::Node* previous, bool pid_pressure) {
    kubelet::NodeObjectInput input;
    input.pid_pressure = pid_pressure;
    input.max_pods = node.config().max_pods;
    auto tasks = kubelet::ReadTaskCount();
    input.info = kubelet::CollectNodeInfo(node.config(), node.capabilities(), node.pid_capacity(),
                                          tasks ? std::optional(*tasks) : std::nullopt, name);
    input.capacity = kubelet::NodeCapacity(node.config());
    input.allocatable = kubelet::NodeAllocatable(node.config());
    input.internal_ip = internal_ip;
    input.kubelet_version = std::string(apiserver::kServedGitVersion);
    return kubelet::NodeObject(input, host, previous, printers::FormatApiTime(
        std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())));
  };
  // Eviction: the thresholds of pid.available are acted on; any other signal's are said to be
  // parsed only, so that nobody believes memory or disk pressure evicts here.
  agent_options.eviction = kubelet::EvictionSettingsOf(*config);
  for (const auto& t : agent_options.eviction.thresholds) {
    if (t.signal == kubelet::kSignalPIDAvailable) continue;
    std::fprintf(stderr,
                 "podlimits serve: warning: eviction threshold %s<%s is not acted on (podlimits "
                 "observes pid.available only)\n",
                 t.signal.c_str(), t.text.c_str());
  }
  agent_options.eviction_period = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::max(*monitoring_period, std::chrono::nanoseconds(std::chrono::milliseconds(100))));
  agent_options.observe_pids = []() -> std::optional<kubelet::PidObservation> {
    auto capacity = kubelet::ReadPidCapacity().Capacity();
    auto tasks = kubelet::ReadTaskCount();
    if (!capacity || !tasks) return std::nullopt;
    return kubelet::PidObservation{*capacity, *capacity - *tasks};
  };
  auto counter = std::make_shared<kubelet::PodProcessCounter>(*config);
  agent_options.pod_pids = [counter](const api::Node& pod) { return counter->Read(pod); };
  agent_options.metrics = &node.metrics();
  agent_options.max_pods = config->max_pods;
  agent_options.static_pod_path = config->static_pod_path;
  agent_options.gates = config->feature_gates;
  agent_options.api = &rest;
  nodeagent::NodeAgent agent(store, agent_options);
  if (auto started = agent.Start(); !started) return Fail(started.error().Message());
  rest.set_pod_logs(&agent);
  rest.set_pod_executor(&agent);
  rest.set_pod_port_dialer(&agent);
  apiserver::NamespaceController namespaces(store, rest);
  namespaces.Start();
  apiserver::StoreMaintenance maintenance(store, {});
  maintenance.Start();
  auto server = http::HttpsServer::Start(
      options, [&rest, &agent](const http::HttpRequest& r) {
        // The kubelet's /metrics, here on the API port (authenticated as every request is).
        if (r.method == "GET" && r.path == "/metrics") {
          return http::HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8",
                                         agent.MetricsText(), {}};
        }
        return apiserver::HandleApiRequest(r, &rest);
      });
  if (!server) return Fail(server.error().Message());
  const std::string listen_host =
      listen->host.find(':') != std::string::npos ? "[" + listen->host + "]" : listen->host;
  std::fprintf(stderr, "podlimits serve: listening on https://%s:%u (KUBECONFIG=%s)\n",
               listen_host.c_str(), (*server)->port(), pki->kubeconfig.c_str());
  std::fflush(stderr);

  int signal = 0;
  sigwait(&stop_signals, &signal);
  (*server)->Stop();
  namespaces.Stop();
  maintenance.Stop();
  if (flags.drain_on_exit) agent.StopAllPods(std::chrono::seconds(60));
  agent.Stop();
  nodeagent::ReleaseCgroupRoot(nodeagent::kCgroupRootClaimsDir,
                               std::filesystem::absolute(data_dir), config->cgroup_root);
  std::fprintf(stderr, "podlimits serve: stopped (%s)\n", signal == SIGINT ? "SIGINT" : "SIGTERM");
  close(lock);
  return 0;
}

int ServeBackupCommand(const ServeBackupFlags& flags) {
  auto backup = storage::BackupStore(
      std::filesystem::path(flags.data_dir) / storage::kStoreFileName, flags.file);
  if (!backup) return Fail("backup: " + backup.error().Message());
  std::printf("backed up %lld objects at resourceVersion %lld to %s (%ju bytes)\n",
              static_cast<long long>(backup->objects), static_cast<long long>(backup->revision),
              flags.file.c_str(), backup->bytes);
  return 0;
}

int PodMonitorCommand(const PodMonitorFlags& flags) {
  auto config = flags.node_config.empty() ? kubelet::DefaultNodeConfig()
                                          : kubelet::LoadNodeConfig(flags.node_config);
  if (!config) return Fail(config.error().Message(), kExitUsage);
  nodeagent::PodMonitorOptions options;
  options.data_dir = flags.data_dir;
  options.uid = flags.uid;
  options.config = std::move(*config);
  options.image_root = ImageRoot(flags.data_dir);
  options.pod_logs_dir = PodLogsDir(options.config, flags.data_dir);
  options.log_policy.max_size = static_cast<std::uint64_t>(options.config.container_log_max_size);
  options.log_policy.max_files = options.config.container_log_max_files;
  options.host_ip = flags.host_ip;
  options.path_env = PathEnv();
  return nodeagent::RunPodMonitor(options);
}

}  // namespace podlimits::cli
