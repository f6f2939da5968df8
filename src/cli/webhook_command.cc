#include "cli/webhook_command.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "http/https_server.h"
#include "base/server_process.h"
#include "cli/listen_address.h"
#include "webhook/cluster_sync.h"
#include "webhook/kube_client.h"
#include "webhook/policy_store.h"
#include "webhook/webhook_config.h"
#include "webhook/webhook_handler.h"

namespace podlimits::cli {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 3;

}  // namespace

int WebhookCommand(const WebhookFlags& flags) {
  IgnoreBrokenPipes();
  RaiseOpenFileLimit();
  auto listen = ParseListen(flags.listen, /*any_port=*/true);
  if (!listen) {
    std::fprintf(stderr, "error: --listen \"%s\": want ADDRESS:PORT with an IP address\n",
                 flags.listen.c_str());
    return kExitUsage;
  }
  auto settings = webhook::LoadWebhookConfig(flags.config);
  if (!settings) {
    std::fprintf(stderr, "error: --config: %s\n", settings.error().Message().c_str());
    return kExitUsage;
  }
  std::optional<webhook::ClusterAccess> access;
  if (flags.in_cluster || !flags.kubeconfig.empty()) {
    if (flags.in_cluster && !flags.kubeconfig.empty()) {
      std::fprintf(stderr, "error: --in-cluster and --kubeconfig are exclusive\n");
      return kExitUsage;
    }
    if (!settings->policy.namespaces.empty() || !settings->policy.limit_ranges.empty()) {
      std::fprintf(stderr,
                   "error: --config: Namespaces and LimitRanges come from the cluster with %s; "
                   "the file may hold only AdmissionConfiguration and WebhookConfiguration\n",
                   flags.in_cluster ? "--in-cluster" : "--kubeconfig");
      return kExitUsage;
    }
    auto found = flags.in_cluster
                     ? webhook::InClusterAccess([](const char* k) { return std::getenv(k); })
                     : webhook::KubeconfigAccess(flags.kubeconfig);
    if (!found) {
      std::fprintf(stderr, "error: %s\n", found.error().Message().c_str());
      return kExitUsage;
    }
    access = std::move(*found);
  }
  // The signals are waited for, not handled: blocked before any thread starts.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  webhook::PolicyStore policies(std::make_shared<const webhook::ReviewPolicy>(settings->policy),
                                /*ready=*/!access);
  std::unique_ptr<webhook::ClusterSync> sync;
  if (access) {
    std::fprintf(stderr, "podlimits webhook: watching namespaces and limitranges at https://%s:%s (%s)\n",
                 access->host.c_str(), access->port.c_str(), access->source.c_str());
    sync = std::make_unique<webhook::ClusterSync>(
        std::move(*access), settings->policy, policies,
        [](const std::string& line) { std::fprintf(stderr, "podlimits webhook: %s\n", line.c_str()); });
    sync->Start();
  }
  webhook::WebhookHandler handler(policies);
  http::HttpsServerOptions options;
  options.address = listen->host;
  options.port = listen->port;
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
  if (!server) {
    if (sync) sync->Stop();
    std::fprintf(stderr, "error: %s\n", server.error().Message().c_str());
    return kExitFailure;
  }
  const std::string host = listen->host.find(':') != std::string::npos
                               ? "[" + listen->host + "]"
                               : listen->host;
  std::fprintf(stderr, "podlimits webhook: listening on https://%s:%u (/validate, /mutate)\n",
               host.c_str(), static_cast<unsigned>((*server)->port()));
  int signal = 0;
  sigwait(&stop_signals, &signal);
  // In-flight reviews are answered; the apiserver's next calls go to the other replica.
  (*server)->Drain(std::chrono::seconds(flags.drain_seconds));
  if (sync) sync->Stop();
  std::fprintf(stderr, "podlimits webhook: stopped (%s)\n", signal == SIGINT ? "SIGINT" : "SIGTERM");
  return 0;
}

}  // namespace podlimits::cli
