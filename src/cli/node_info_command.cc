#include "cli/node_info_command.h"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/exit_codes.h"
#include "cli/flags.h"
#include "cli/node_config_flag.h"
#include "cli/path_env.h"
#include "kubelet/lifecycle/field_coverage.h"
#include "kubelet/kubelet.h"
#include "kubelet/status/node_info.h"
#include "kubelet/cm/pid_capacity.h"

namespace podlimits::cli {
namespace {

struct NodeInfoFlags {
  std::string node_config;
  std::string output = "text";
  bool field_coverage = false;
};

int NodeInfoCommand(const NodeInfoFlags& flags) {
  if (flags.field_coverage) {
    std::fputs(kubelet::RenderFieldCoverageTable().c_str(), stdout);
    return kExitOk;
  }
  auto config = LoadNodeConfigOrDefault(flags.node_config);
  if (!config) {
    std::fprintf(stderr, "error: %s\n", config.error().Message().c_str());
    return kExitUsage;
  }
  kubelet::Kubelet node({std::move(config->config), {}, PathEnv(), /*runtime_version=*/true});
  if (auto probed = node.Probe(); !probed) {
    std::fprintf(stderr, "error: %s\n", probed.error().Message().c_str());
    return probed.error().Is(kubelet::kInvalidNodeConfiguration) ? kExitUsage : kExitNodeFailure;
  }
  auto tasks = kubelet::ReadTaskCount();
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  kubelet::NodeInfo info =
      kubelet::CollectNodeInfo(node.config(), node.capabilities(), node.pid_capacity(),
                               tasks ? std::optional(*tasks) : std::nullopt, host);
  std::string text = flags.output == "json" ? kubelet::RenderNodeInfoJson(info) + "\n"
                                            : kubelet::RenderNodeInfoText(info);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace

void AddNodeInfoCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<NodeInfoFlags>();
  CLI::App* node_info = app.add_subcommand(
      "node-info",
      "Capacity, allocatable, cgroup mode, runtime, declared features, rlimit ceilings");
  AddNodeConfigFlag(node_info, flags->node_config);
  AddOutputFlag(node_info, flags->output, {"text", "json"}, "text or json");
  node_info->add_flag("--field-coverage", flags->field_coverage,
                      "Print which pod fields this node applies, refuses or ignores (Markdown)");
  node_info->callback([flags, &exit_code] { exit_code = NodeInfoCommand(*flags); });
}

}  // namespace podlimits::cli
