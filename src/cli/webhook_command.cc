#include "cli/webhook_command.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>

#include "apiserver/https_server.h"
#include "cli/listen_address.h"
#include "webhook/webhook_config.h"
#include "webhook/webhook_handler.h"

namespace podlimits::cli {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 3;

}  // namespace

int WebhookCommand(const WebhookFlags& flags) {
  auto listen = ParseListen(flags.listen, /*any_port=*/true);
  if (!listen) {
    std::fprintf(stderr, "error: --listen \"%s\": want ADDRESS:PORT with an IP address\n",
                 flags.listen.c_str());
    return kExitUsage;
  }
  auto settings = webhook::LoadWebhookConfig(flags.config);
  if (!settings) {
    std::fprintf(stderr, "error: --config: %s\n", settings.error().c_str());
    return kExitUsage;
  }
  // The signals are waited for, not handled: blocked before any thread starts.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  webhook::WebhookHandler handler(*settings);
  apiserver::HttpsServerOptions options;
  options.address = listen->host;
  options.port = listen->port;
  options.cert_file = flags.cert_file;
  options.key_file = flags.key_file;
  options.authenticate = false;  // the apiserver calls webhooks without credentials
  options.reload_certificate = true;
  auto server = apiserver::HttpsServer::Start(
      options, [&handler](const apiserver::HttpRequest& r) { return handler(r); });
  if (!server) {
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
  std::fprintf(stderr, "podlimits webhook: stopped (%s)\n", signal == SIGINT ? "SIGINT" : "SIGTERM");
  return 0;
}

}  // namespace podlimits::cli
