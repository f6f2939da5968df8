#include "cli/recommend_command.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "cli/exit_codes.h"
#include "recommend/recommend.h"
#include "webhook/kube_client.h"

namespace podlimits::cli {
namespace {

struct RecommendFlags {
  recommend::RecommendOptions options;
  std::string kubeconfig;
  bool namespace_given = false;
};

// --kubeconfig, else $KUBECONFIG (its first file), else ~/.kube/config, as kubectl looks.
std::string KubeconfigPath(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::string first(env);
    return first.substr(0, first.find(':'));
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + "/.kube/config";
}

int RecommendCommand(RecommendFlags flags) {
  if (!flags.options.pod.empty() && !flags.options.selector.empty()) {
    std::fprintf(stderr, "error: only one of POD or --selector can be provided\n");
    return kExitUsage;
  }
  auto access = webhook::KubeconfigAccess(KubeconfigPath(flags.kubeconfig));
  if (!access) {
    std::fprintf(stderr, "error: %s\n", access.error().Message().c_str());
    return kExitUsage;
  }
  // As kubectl: -n, else the current context's namespace, else "default".
  if (!flags.namespace_given && !access->context_namespace.empty()) {
    flags.options.namespace_ = access->context_namespace;
  }
  webhook::KubeClient client(std::move(*access));
  auto advice = recommend::Recommend(client, flags.options);
  if (!advice) {
    std::fprintf(stderr, "%s\n", advice.error().Message().c_str());
    return kExitRejected;
  }
  if (advice->empty()) {
    std::fprintf(stderr, "No resources found in %s namespace.\n", flags.options.namespace_.c_str());
    return kExitOk;
  }
  int exit_code = kExitOk;
  for (const auto& pod : *advice) {
    for (const auto& note : pod.notes) std::fprintf(stderr, "# %s\n", note.c_str());
    if (!pod.observed) {
      exit_code = kExitRejected;
      continue;
    }
    std::printf("%s\n", pod.patch.c_str());
  }
  return exit_code;
}

}  // namespace

void AddRecommendCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<RecommendFlags>();
  CLI::App* cmd = app.add_subcommand(
      "recommend",
      "The limits.pid and nofile ulimits to set for pods, from the peaks a podlimits serve node "
      "observed, as a JSON patch for kubectl patch --type=json");
  cmd->add_option("POD", flags->options.pod, "The pod (default: every pod of the namespace)");
  CLI::Option* namespace_flag =
      cmd->add_option("-n,--namespace", flags->options.namespace_,
                      "The pods' namespace (default: the kubeconfig context's, else default)");
  cmd->add_option("-l,--selector", flags->options.selector,
                  "Only the pods with these labels (a label selector)");
  cmd->add_option("--kubeconfig", flags->kubeconfig,
                  "The node's kubeconfig (default: $KUBECONFIG, else ~/.kube/config)");
  cmd->add_option("--headroom", flags->options.headroom_percent,
                  "Percent added to each peak (default 50)")
      ->check(CLI::Range(0, 1000));
  cmd->callback([flags, namespace_flag, &exit_code] {
    flags->namespace_given = namespace_flag->count() > 0;
    exit_code = RecommendCommand(*flags);
  });
}

}  // namespace podlimits::cli
