#include "cli/serve_command.h"

#include <arpa/inet.h>
#include <signal.h>

#include <cstdio>
#include <memory>
#include <string>

#include "base/server_process.h"
#include "cli/exit_codes.h"
#include "cli/flags.h"
#include "cli/listen_address.h"
#include "cli/node_config_flag.h"
#include "cli/path_env.h"
#include "codec/go_duration.h"
#include "serve/backup.h"
#include "serve/pod_monitor_start.h"
#include "serve/serve.h"
#include "storage/node_store.h"

namespace podlimits::cli {
namespace {

struct ServeFlags {
  std::string node_config;
  std::string data_dir = "/var/lib/podlimits";
  std::string listen = "127.0.0.1:6443";
  bool listen_beyond_loopback = false;
  std::string token_file;
  bool drain_on_exit = false;
  std::string eviction_monitoring_period = "10s";  // a Go duration
  std::string metric_resolution = "15s";           // a Go duration
  std::string store_integrity_check = "quick";  // quick or full (storage/node_store.h)
  bool reinitialize_store = false;
};

struct ServeBackupFlags {
  std::string data_dir = "/var/lib/podlimits";
  std::string file;
};

struct PodMonitorFlags {
  std::string data_dir;
  std::string uid;
  std::string host_ip;
};

int Fail(const std::string& message, int code) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return code;
}

void Notice(const std::string& line) {
  std::fprintf(stderr, "podlimits serve: %s\n", line.c_str());
  std::fflush(stderr);
}

bool IsLoopback(const std::string& host) {
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  return host == "::1";
}

// The flags as the library takes them; an error is a usage error (exit 2).
Result<serve::ServeOptions> ServeOptionsOf(const ServeFlags& flags) {
  auto listen = ParseListen(flags.listen);
  if (!listen) {
    return Failure("--listen \"" + flags.listen + "\": want ADDRESS:PORT with an IP address");
  }
  if (!IsLoopback(listen->host) && !flags.listen_beyond_loopback) {
    return Failure("--listen " + flags.listen +
                   " is beyond loopback: the API then reaches other machines; say so with "
                   "--listen-beyond-loopback");
  }
  auto period = codec::ParseGoDuration(flags.eviction_monitoring_period);
  if (!period || period->count() <= 0) {
    return Failure("--eviction-monitoring-period \"" + flags.eviction_monitoring_period + "\": " +
                   (period ? std::string("must be positive") : period.error().Message()));
  }
  auto resolution = codec::ParseGoDuration(flags.metric_resolution);
  if (!resolution || *resolution < std::chrono::seconds(1)) {
    return Failure("--metric-resolution \"" + flags.metric_resolution + "\": " +
                   (resolution ? std::string("must be at least 1s") : resolution.error().Message()));
  }
  auto config = LoadNodeConfigOrDefault(flags.node_config);
  if (!config) return std::unexpected(config.error());
  serve::ServeOptions options;
  options.node_config = std::move(config->config);
  options.node_config_text = std::move(config->text);
  options.data_dir = flags.data_dir;
  options.listen_host = listen->host;
  options.listen_port = listen->port;
  options.token_file = flags.token_file;
  options.drain_on_exit = flags.drain_on_exit;
  options.eviction_monitoring_period = *period;
  options.metric_resolution = *resolution;
  options.store_integrity_check = flags.store_integrity_check == "full"
                                      ? storage::IntegrityCheck::kFull
                                      : storage::IntegrityCheck::kQuick;
  options.reinitialize_store = flags.reinitialize_store;
  options.path_env = PathEnv();
  options.notice = Notice;
  return options;
}

int ServeCommand(const ServeFlags& flags) {
  IgnoreBrokenPipes();
  RaiseOpenFileLimit();
  auto options = ServeOptionsOf(flags);
  if (!options) return Fail(options.error().Message(), kExitUsage);
  auto stopped = serve::Run(*options);
  if (!stopped) {
    const bool configuration = stopped.error().Is(kubelet::kInvalidNodeConfiguration);
    return Fail(stopped.error().Message(), configuration ? kExitUsage : kExitNodeFailure);
  }
  Notice(std::string("stopped (") + (stopped->signal == SIGINT ? "SIGINT" : "SIGTERM") + ")");
  return kExitOk;
}

int ServeBackupCommand(const ServeBackupFlags& flags) {
  auto backup = serve::BackupNodeStore(flags.data_dir, flags.file);
  if (!backup) return Fail(backup.error().Message(), kExitNodeFailure);
  std::printf("backed up %lld objects at resourceVersion %lld to %s (%ju bytes)\n",
              static_cast<long long>(backup->objects), static_cast<long long>(backup->revision),
              flags.file.c_str(), backup->bytes);
  return kExitOk;
}

int PodMonitorCommand(const PodMonitorFlags& flags) {
  auto ran = serve::RunPodMonitor({flags.data_dir, flags.uid, flags.host_ip, PathEnv()});
  if (!ran) return Fail(ran.error().Message(), kExitUsage);
  return *ran;
}

void AddServeFlags(CLI::App* serve, ServeFlags& flags) {
  AddNodeConfigFlag(serve, flags.node_config);
  AddDataDirFlag(serve, flags.data_dir,
                 "Where the node keeps its state, certificates and kubeconfig "
                 "(default /var/lib/podlimits)");
  AddListenFlag(serve, flags.listen, "ADDRESS:PORT (default 127.0.0.1:6443)");
  serve->add_flag("--listen-beyond-loopback", flags.listen_beyond_loopback,
                  "Allow a --listen address other machines can reach");
  serve->add_option("--token-file", flags.token_file,
                    "A file holding a bearer token accepted besides the admin certificate");
  serve->add_flag("--drain-on-exit", flags.drain_on_exit,
                  "Stop every pod when stopping (default: pods keep running, as through a "
                  "kubelet restart)");
  serve->add_option("--eviction-monitoring-period", flags.eviction_monitoring_period,
                    "How often pid.available is compared with the eviction thresholds "
                    "(default 10s, the kubelet's)");
  serve->add_option("--metric-resolution", flags.metric_resolution,
                    "How often the pods' cpu, memory, processes and open files are sampled "
                    "(default 15s, metrics-server's): kubectl top's window");
  serve->add_option("--store-integrity-check", flags.store_integrity_check,
                    "What of the store is checked at start: quick (PRAGMA quick_check, the "
                    "default) or full (PRAGMA integrity_check)")
      ->check(CLI::IsMember({"quick", "full"}));
  serve->add_flag("--reinitialize-store", flags.reinitialize_store,
                  "Start on an empty store when the node's is lost or damaged (its objects are "
                  "gone and its pods are stopped); what is left of it is kept aside");
}

}  // namespace

void AddServeCommands(CLI::App& app, int& exit_code) {
  auto serve_flags = std::make_shared<ServeFlags>();
  CLI::App* serve = app.add_subcommand(
      "serve",
      "A one-machine node that kubectl drives: its API over TLS, its pods run until deleted");
  AddServeFlags(serve, *serve_flags);

  auto backup_flags = std::make_shared<ServeBackupFlags>();
  CLI::App* backup = serve->add_subcommand(
      "backup", "Copy the node's store to FILE, while serve runs or not (restore: docs/serve.md)");
  AddDataDirFlag(backup, backup_flags->data_dir,
                 "The node's data directory (default /var/lib/podlimits)");
  backup->add_option("FILE", backup_flags->file, "Where the backup goes")->required();
  backup->callback([backup_flags, &exit_code] { exit_code = ServeBackupCommand(*backup_flags); });
  // CLI11 runs serve's callback after its subcommand's: `serve backup` is not a serve.
  serve->callback([serve_flags, backup, &exit_code] {
    if (!backup->parsed()) exit_code = ServeCommand(*serve_flags);
  });

  auto monitor_flags = std::make_shared<PodMonitorFlags>();
  CLI::App* monitor = app.add_subcommand("pod-monitor", "");  // serve's own, hidden
  monitor->group("");
  AddDataDirFlag(monitor, monitor_flags->data_dir, "")->required();
  monitor->add_option("--uid", monitor_flags->uid)->required();
  monitor->add_option("--host-ip", monitor_flags->host_ip);
  monitor->callback([monitor_flags, &exit_code] { exit_code = PodMonitorCommand(*monitor_flags); });
}

}  // namespace podlimits::cli
