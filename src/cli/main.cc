// The podlimits command. The command-line contract is in DESIGN.md; change it only by extending.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "admission/chain.h"
#include "admission/pod_security.h"
#include "api/decode.h"
#include "cli/flags.h"
#include "cli/image_command.h"
#include "cli/input.h"
#include "cli/name_seed.h"
#include "cli/report.h"
#include "cli/run_command.h"
#include "cli/serve_command.h"
#include "cli/node_labels_command.h"
#include "cli/webhook_command.h"
#include "kubelet/kubelet.h"
#include "kubelet/cm/managed_controllers.h"
#include "kubelet/cm/node_allocatable.h"
#include "kubelet/cm/node_capabilities.h"
#include "kubelet/config/node_config.h"
#include "kubelet/lifecycle/field_coverage.h"
#include "kubelet/status/node_info.h"
#include "kubelet/cm/pid_capacity.h"
#include "runcwrap/wrapper.h"
#include "validation/feature_gates.h"

namespace podlimits::cli {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitNodeFailure = 3;

struct CommonFlags {
  std::vector<std::string> files;
  api::FieldValidation validate_mode = api::FieldValidation::kStrict;
  std::string feature_gates;
};

void AddCommonFlags(CLI::App* cmd, CommonFlags& flags) {
  cmd->add_option("-f,--filename", flags.files, "Files, directories or - (stdin) to read")
      ->required();
  AddValidateFlag(cmd, flags.validate_mode);
}

int Run(const CommonFlags& flags, admission::ChainOptions options, OutputFormat format) {
  auto gates = validation::FeatureGates::Parse(flags.feature_gates);
  if (!gates) {
    std::fprintf(stderr, "error: invalid argument \"%s\" for \"--feature-gates\" flag: %s\n",
                 flags.feature_gates.c_str(), gates.error().Message().c_str());
    return kExitUsage;
  }
  options.gates = *gates;
  auto name_generator = NameGeneratorFromEnvironment();
  if (!name_generator) {
    std::fprintf(stderr, "error: %s\n", name_generator.error().Message().c_str());
    return kExitUsage;
  }
  options.name_generator = name_generator->get();
  auto inputs = ReadInputs(flags.files);
  if (!inputs) {
    std::fprintf(stderr, "%s\n", inputs.error().Message().c_str());
    return kExitUsage;
  }
  std::vector<api::DecodeResult> decoded;
  api::DecodeOptions decode_options;
  decode_options.field_validation = flags.validate_mode;
  for (const auto& in : *inputs) {
    for (auto& r : api::DecodeManifests(in.name, in.text, decode_options)) {
      decoded.push_back(std::move(r));
    }
  }
  return Report(admission::RunChain(std::move(decoded), options), format);
}

int NodeInfoCommand(const std::string& node_config, const std::string& output) {
  auto config =
      node_config.empty() ? kubelet::DefaultNodeConfig() : kubelet::LoadNodeConfig(node_config);
  if (!config) {
    std::fprintf(stderr, "error: %s\n", config.error().Message().c_str());
    return kExitUsage;
  }
  const char* path = std::getenv("PATH");
  kubelet::KubeletOptions options{
      std::move(*config),
      {},
      path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      /*runtime_version=*/true};
  kubelet::Kubelet node(std::move(options));
  if (auto probed = node.Probe(); !probed) {
    std::fprintf(stderr, "error: %s\n", probed.error().error.Message().c_str());
    return probed.error().kind == kubelet::NodeError::Kind::kConfiguration ? kExitUsage
                                                                           : kExitNodeFailure;
  }
  auto tasks = kubelet::ReadTaskCount();
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  kubelet::NodeInfo info =
      kubelet::CollectNodeInfo(node.config(), node.capabilities(), node.pid_capacity(),
                               tasks ? std::optional(*tasks) : std::nullopt, host);
  std::string text = output == "json" ? kubelet::RenderNodeInfoJson(info) + "\n"
                                      : kubelet::RenderNodeInfoText(info);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{"podlimits: Kubernetes pod process limits — admission and enforcement"};
  app.require_subcommand(1);

  CommonFlags validate_flags;
  CLI::App* validate = app.add_subcommand("validate", "API validation only");
  AddCommonFlags(validate, validate_flags);
  validate->add_option("--feature-gates", validate_flags.feature_gates,
                       "Feature gates, e.g. ContainerUlimits=false,PerPodPIDLimit=true");

  CommonFlags admit_flags;
  std::string output = "yaml";
  std::string admission_config;
  std::string username = "kubernetes-admin";
  CLI::App* admit =
      app.add_subcommand("admit", "The apiserver admission chain; admitted objects to stdout");
  AddCommonFlags(admit, admit_flags);
  admit->add_option("--feature-gates", admit_flags.feature_gates,
                    "Feature gates, e.g. ContainerUlimits=false,PerPodPIDLimit=true");
  admit->add_option("--admission-config", admission_config,
                    "AdmissionConfiguration file (PodSecurity defaults and exemptions)");
  admit->add_option("-o,--output", output, "yaml or json")->check(CLI::IsMember({"yaml", "json"}));
  admit->add_option("--as", username, "The requesting user (for Pod Security exemptions)");

  std::string node_config;
  std::string node_info_output = "text";
  CLI::App* node_info = app.add_subcommand(
      "node-info",
      "Capacity, allocatable, cgroup mode, runtime, declared features, rlimit ceilings");
  node_info->add_option("--node-config", node_config,
                        "KubeletConfiguration (+ podlimits NodeConfiguration) file");
  node_info->add_option("-o,--output", node_info_output, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  bool field_coverage = false;
  node_info->add_flag("--field-coverage", field_coverage,
                      "Print which pod fields this node applies, refuses or ignores (Markdown)");

  RunFlags run_flags;
  CLI::App* run = app.add_subcommand(
      "run", "Admit a pod and run it on this node with its limits enforced by the kernel");
  run->add_option("-f,--filename", run_flags.files,
                  "The pod (with its Namespace and LimitRanges, if any); files or -")
      ->required();
  run->add_option("--node-config", run_flags.node_config,
                  "KubeletConfiguration (+ podlimits NodeConfiguration) file");
  run->add_option("-o,--output", run_flags.output, "json: end with a PodRunStatus object")
      ->check(CLI::IsMember({"json"}));
  AddValidateFlag(run, run_flags.validate_mode);
  run->add_option("--image-root", run_flags.image_root,
                  "The image store (default /var/lib/podlimits/images)");

  ServeFlags serve_flags;
  CLI::App* serve = app.add_subcommand(
      "serve",
      "A one-machine node that kubectl drives: its API over TLS, its pods run until deleted");
  serve->add_option("--node-config", serve_flags.node_config,
                    "KubeletConfiguration (+ podlimits NodeConfiguration) file");
  serve->add_option("--data-dir", serve_flags.data_dir,
                    "Where the node keeps its state, certificates and kubeconfig "
                    "(default /var/lib/podlimits)");
  serve->add_option("--listen", serve_flags.listen, "ADDRESS:PORT (default 127.0.0.1:6443)");
  serve->add_flag("--listen-beyond-loopback", serve_flags.listen_beyond_loopback,
                  "Allow a --listen address other machines can reach");
  serve->add_option("--token-file", serve_flags.token_file,
                    "A file holding a bearer token accepted besides the admin certificate");
  serve->add_flag("--drain-on-exit", serve_flags.drain_on_exit,
                  "Stop every pod when stopping (default: pods keep running, as through a "
                  "kubelet restart)");
  serve->add_option("--eviction-monitoring-period", serve_flags.eviction_monitoring_period,
                    "How often pid.available is compared with the eviction thresholds "
                    "(default 10s, the kubelet's)");
  serve
      ->add_option_function<std::string>(
          "--store-integrity-check",
          [&serve_flags](const std::string& check) {
            serve_flags.store_integrity_check = check == "full"
                                                    ? storage::IntegrityCheck::kFull
                                                    : storage::IntegrityCheck::kQuick;
          },
          "What of the store is checked at start: quick (PRAGMA quick_check, the default) or "
          "full (PRAGMA integrity_check)")
      ->check(CLI::IsMember({"quick", "full"}));
  serve->add_flag("--reinitialize-store", serve_flags.reinitialize_store,
                  "Start on an empty store when the node's is lost or damaged (its objects are "
                  "gone and its pods are stopped); what is left of it is kept aside");
  ServeBackupFlags backup_flags;
  CLI::App* serve_backup = serve->add_subcommand(
      "backup", "Copy the node's store to FILE, while serve runs or not (restore: docs/serve.md)");
  serve_backup->add_option("--data-dir", backup_flags.data_dir,
                           "The node's data directory (default /var/lib/podlimits)");
  serve_backup->add_option("FILE", backup_flags.file, "Where the backup goes")->required();

  WebhookFlags webhook_flags;
  CLI::App* webhook_cmd = app.add_subcommand(
      "webhook",
      "AdmissionReview server for real clusters: /validate and /mutate (admission.k8s.io/v1)");
  webhook_cmd->add_option("--tls-cert-file", webhook_flags.cert_file,
                          "Serving certificate (PEM, with its chain); reloaded when it changes")
      ->required();
  webhook_cmd->add_option("--tls-private-key-file", webhook_flags.key_file,
                          "The serving certificate's key (PEM)")
      ->required();
  webhook_cmd->add_option("--listen", webhook_flags.listen,
                          "ADDRESS:PORT (default 0.0.0.0:8443; port 0: any free one)");
  webhook_cmd->add_option("--config", webhook_flags.config,
                          "Namespaces, LimitRanges, AdmissionConfiguration and a "
                          "WebhookConfiguration, as one YAML stream");
  webhook_cmd->add_option("--kubeconfig", webhook_flags.kubeconfig,
                          "List and watch the cluster's Namespaces and LimitRanges through this "
                          "kubeconfig's current context");
  webhook_cmd->add_flag("--in-cluster", webhook_flags.in_cluster,
                        "List and watch them with the pod's service account");

  NodeLabelsFlags labels_flags;
  CLI::App* labels_cmd = app.add_subcommand(
      "node-labels",
      "Label this node's Node object with the features podlimits-runc gives it "
      "(feature.podlimits.dev/*), for the podlimits RuntimeClasses");
  labels_cmd->add_option("--node", labels_flags.node, "This node's name")->required();
  labels_cmd->add_option("--kubeconfig", labels_flags.kubeconfig, "The API through this kubeconfig");
  labels_cmd->add_flag("--in-cluster", labels_flags.in_cluster, "The API with the pod's service account");
  labels_cmd->add_flag("--dry-run", labels_flags.dry_run, "Print the labels and the patch only");

  PodMonitorFlags monitor_flags;
  CLI::App* pod_monitor = app.add_subcommand("pod-monitor", "");  // serve's own, hidden
  pod_monitor->group("");
  pod_monitor->add_option("--data-dir", monitor_flags.data_dir)->required();
  pod_monitor->add_option("--uid", monitor_flags.uid)->required();
  pod_monitor->add_option("--node-config", monitor_flags.node_config);
  pod_monitor->add_option("--host-ip", monitor_flags.host_ip);

  std::string image_root, image_data_dir;
  CLI::App* image = app.add_subcommand("image", "The local image store");
  image->require_subcommand(1);
  auto* image_root_option = image->add_option(
      "--image-root", image_root, "The image store (default /var/lib/podlimits/images)");
  image->add_option("--data-dir", image_data_dir,
                    "The image store of the node `podlimits serve --data-dir DIR` runs: DIR/images")
      ->excludes(image_root_option);
  std::string load_source, load_name;
  CLI::App* image_load = image->add_subcommand(
      "load", "Load an OCI image layout directory, an OCI archive or a docker archive");
  image_load->add_option("SOURCE", load_source, "Directory or archive")->required();
  image_load->add_option("--name", load_name, "NAME[:TAG] (default tag: latest)")->required();
  std::string ls_output = "text";
  CLI::App* image_ls = image->add_subcommand("ls", "List the images");
  image_ls->add_option("-o,--output", ls_output, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  std::string rm_name;
  CLI::App* image_rm =
      image->add_subcommand("rm", "Remove an image name (and the image with its last name)");
  image_rm->add_option("NAME", rm_name, "NAME[:TAG]")->required();
  // `image load SRC --name N --image-root DIR`: an option of `image` given after its subcommand
  // goes up to `image`, as it does when given before.
  for (CLI::App* sub : {image_load, image_ls, image_rm}) sub->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }

  if (node_info->parsed() && field_coverage) {
    std::fputs(kubelet::RenderFieldCoverageTable().c_str(), stdout);
    return 0;
  }
  if (node_info->parsed()) return NodeInfoCommand(node_config, node_info_output);
  if (run->parsed()) return RunCommand(run_flags);
  if (serve_backup->parsed()) return ServeBackupCommand(backup_flags);
  if (serve->parsed()) return ServeCommand(serve_flags);
  if (webhook_cmd->parsed()) return WebhookCommand(webhook_flags);
  if (labels_cmd->parsed()) return NodeLabelsCommand(labels_flags);
  if (pod_monitor->parsed()) return PodMonitorCommand(monitor_flags);
  if (!image_data_dir.empty()) image_root = (std::filesystem::path(image_data_dir) / "images").string();
  if (image_load->parsed()) return ImageLoadCommand(image_root, load_source, load_name);
  if (image_ls->parsed()) return ImageListCommand(image_root, ls_output);
  if (image_rm->parsed()) return ImageRemoveCommand(image_root, rm_name);
  if (validate->parsed()) {
    admission::ChainOptions options;
    options.run_admission_plugins = false;
    return Run(validate_flags, options, OutputFormat::kName);
  }
  admission::ChainOptions options;
  options.username = username;
  std::optional<admission::psa::PodSecurity> pod_security;
  if (!admission_config.empty()) {
    auto loaded = admission::psa::LoadAdmissionConfiguration(admission_config);
    if (!loaded) {
      std::fprintf(stderr, "error: %s\n", loaded.error().Message().c_str());
      return kExitUsage;
    }
    pod_security.emplace(std::move(*loaded));
    options.pod_security = &*pod_security;
  }
  return Run(admit_flags, options, output == "json" ? OutputFormat::kJson : OutputFormat::kYaml);
}

}  // namespace podlimits::cli

int main(int argc, char** argv) {
  // Called as podlimits-runc (a link to this binary), it is a runc-compatible command line, which
  // CLI11 must not see.
  if (argc > 0 && std::filesystem::path(argv[0]).filename() == "podlimits-runc") {
    return podlimits::runcwrap::RuncWrapperMain(argc, argv);
  }
  return podlimits::cli::Main(argc, argv);
}
