#include "cli/webhook_command.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "http/https_server.h"
#include "base/server_process.h"
#include "cli/cluster_access.h"
#include "cli/exit_codes.h"
#include "cli/flags.h"
#include "cli/listen_address.h"
#include "webhook/cluster_sync.h"
#include "webhook/kube_client.h"
#include "webhook/policy_store.h"
#include "webhook/webhook_config.h"
#include "webhook/webhook_handler.h"

namespace podlimits::cli {
namespace {

struct WebhookFlags {
  std::string cert_file, key_file;
  std::string listen = "0.0.0.0:8443";  // in its pod, behind the webhook's Service
  std::string config;
  std::string kubeconfig;  // the cluster's Namespaces and LimitRanges through this kubeconfig
  bool in_cluster = false;  // ... or through the pod's service account
  int drain_seconds = 10;
};

// What the flags ask for; an error is a usage error (exit 2).
struct WebhookSetup {
  ListenAddress listen;
  webhook::WebhookSettings settings;
  std::optional<webhook::ClusterAccess> access;  // unset: the policy is the --config file's
};

Result<WebhookSetup> WebhookSetupOf(const WebhookFlags& flags) {
  auto listen = ParseListen(flags.listen, /*any_port=*/true);
  if (!listen) {
    return Failure("--listen \"" + flags.listen + "\": want ADDRESS:PORT with an IP address");
  }
  auto settings = webhook::LoadWebhookConfig(flags.config);
  if (!settings) return std::unexpected(std::move(settings.error()).Wrap("--config"));
  WebhookSetup setup{*listen, std::move(*settings), std::nullopt};
  if (!flags.in_cluster && flags.kubeconfig.empty()) return setup;
  if (flags.in_cluster && !flags.kubeconfig.empty()) {
    return Failure("--in-cluster and --kubeconfig are exclusive");
  }
  if (!setup.settings.policy.namespaces.empty() || !setup.settings.policy.limit_ranges.empty()) {
    return Failure(std::string("--config: Namespaces and LimitRanges come from the cluster with ") +
                   (flags.in_cluster ? "--in-cluster" : "--kubeconfig") +
                   "; the file may hold only AdmissionConfiguration and WebhookConfiguration");
  }
  auto access = ClusterAccessOf(flags.kubeconfig, flags.in_cluster);
  if (!access) return std::unexpected(access.error());
  setup.access = std::move(*access);
  return setup;
}

void Log(const std::string& line) { std::fprintf(stderr, "podlimits webhook: %s\n", line.c_str()); }

Result<std::unique_ptr<http::HttpsServer>> StartListener(const WebhookFlags& flags,
                                                         const ListenAddress& listen,
                                                         webhook::WebhookHandler& handler) {
  http::HttpsServerOptions options;
  options.address = listen.host;
  options.port = listen.port;
  options.cert_file = flags.cert_file;
  options.key_file = flags.key_file;
  options.authenticate = false;  // the apiserver calls webhooks without credentials
  options.reload_certificate = true;
  options.handler_blocks = false;  // a review is CPU only: answered on the io thread
  // deploy/webhook gives the webhook 128 MiB: five reviews of the largest size at once, each
  // decoded within its value cap (admission_review.cc), fit in it with room to spare.
  options.max_buffered_body_bytes = 16ull << 20;
  auto server = http::HttpsServer::Start(
      options, [&handler](const http::HttpRequest& r) { return handler(r); });
  if (server) handler.AttachListener(**server);  // its /metrics reports the listener's figures
  return server;
}

int WebhookCommand(const WebhookFlags& flags) {
  IgnoreBrokenPipes();
  RaiseOpenFileLimit();
  auto setup = WebhookSetupOf(flags);
  if (!setup) {
    std::fprintf(stderr, "error: %s\n", setup.error().Message().c_str());
    return kExitUsage;
  }
  // The signals are waited for, not handled: blocked before any thread starts.
  const sigset_t stop_signals = BlockStopSignals();

  auto& access = setup->access;
  webhook::PolicyStore policies(
      std::make_shared<const webhook::ReviewPolicy>(setup->settings.policy), /*ready=*/!access);
  std::unique_ptr<webhook::ClusterSync> sync;
  if (access) {
    Log("watching namespaces and limitranges at https://" + access->host + ":" + access->port +
        " (" + access->source + ")");
    sync = std::make_unique<webhook::ClusterSync>(std::move(*access), setup->settings.policy,
                                                  policies, Log);
    sync->Start();
  }
  webhook::WebhookHandler handler(policies);
  auto server = StartListener(flags, setup->listen, handler);
  if (!server) {
    if (sync) sync->Stop();
    std::fprintf(stderr, "error: %s\n", server.error().Message().c_str());
    return kExitNodeFailure;
  }
  const std::string& host = setup->listen.host;
  Log("listening on https://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) +
      ":" + std::to_string((*server)->port()) + " (/validate, /mutate)");
  int signal = 0;
  sigwait(&stop_signals, &signal);
  // In-flight reviews are answered; the apiserver's next calls go to the other replica.
  (*server)->Drain(std::chrono::seconds(flags.drain_seconds));
  if (sync) sync->Stop();
  Log(std::string("stopped (") + (signal == SIGINT ? "SIGINT" : "SIGTERM") + ")");
  return kExitOk;
}

}  // namespace

void AddWebhookCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<WebhookFlags>();
  CLI::App* cmd = app.add_subcommand(
      "webhook",
      "AdmissionReview server for real clusters: /validate and /mutate (admission.k8s.io/v1)");
  cmd->add_option("--tls-cert-file", flags->cert_file,
                  "Serving certificate (PEM, with its chain); reloaded when it changes")
      ->required();
  cmd->add_option("--tls-private-key-file", flags->key_file, "The serving certificate's key (PEM)")
      ->required();
  AddListenFlag(cmd, flags->listen, "ADDRESS:PORT (default 0.0.0.0:8443; port 0: any free one)");
  cmd->add_option("--config", flags->config,
                  "Namespaces, LimitRanges, AdmissionConfiguration and a WebhookConfiguration, as "
                  "one YAML stream");
  AddClusterAccessFlags(cmd, flags->kubeconfig, flags->in_cluster,
                        "List and watch the cluster's Namespaces and LimitRanges through this "
                        "kubeconfig's current context",
                        "List and watch them with the pod's service account");
  cmd->callback([flags, &exit_code] { exit_code = WebhookCommand(*flags); });
}

}  // namespace podlimits::cli
