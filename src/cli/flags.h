// Flags several commands share, declared once here and parsed once by CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "api/decode.h"

namespace podlimits::cli {

// kubectl's --validate: what an unknown field does. strict (true), warn, ignore (false).
inline CLI::Option* AddValidateFlag(CLI::App* cmd, api::FieldValidation& mode) {
  static const std::map<std::string, api::FieldValidation> kModes = {
      {"strict", api::FieldValidation::kStrict}, {"true", api::FieldValidation::kStrict},
      {"warn", api::FieldValidation::kWarn},     {"ignore", api::FieldValidation::kIgnore},
      {"false", api::FieldValidation::kIgnore},
  };
  return cmd
      ->add_option("--validate", mode, "Unknown-field handling: strict (default), warn or ignore")
      ->transform(CLI::CheckedTransformer(kModes));
}

// --node-config: the node's KubeletConfiguration and NodeConfiguration (node_config.h of the
// kubelet library); unset, the built-in defaults (LoadNodeConfigOrDefault).
inline CLI::Option* AddNodeConfigFlag(CLI::App* cmd, std::string& path) {
  return cmd->add_option("--node-config", path,
                         "KubeletConfiguration (+ podlimits NodeConfiguration) file");
}

// --feature-gates K=V,...: the apiserver's gates for validate and admit.
inline CLI::Option* AddFeatureGatesFlag(CLI::App* cmd, std::string& gates) {
  return cmd->add_option("--feature-gates", gates,
                         "Feature gates, e.g. ContainerUlimits=false,PerPodPIDLimit=true");
}

// --data-dir: the node's data directory (`serve`'s; the image store and backup find it there).
inline CLI::Option* AddDataDirFlag(CLI::App* cmd, std::string& dir, const std::string& what) {
  return cmd->add_option("--data-dir", dir, what);
}

// --kubeconfig and --in-cluster: how a command reaches a real cluster's API.
inline void AddClusterAccessFlags(CLI::App* cmd, std::string& kubeconfig, bool& in_cluster,
                                  const std::string& kubeconfig_what,
                                  const std::string& in_cluster_what) {
  cmd->add_option("--kubeconfig", kubeconfig, kubeconfig_what);
  cmd->add_flag("--in-cluster", in_cluster, in_cluster_what);
}

// -o/--output, one of `choices`.
inline CLI::Option* AddOutputFlag(CLI::App* cmd, std::string& output,
                                  std::vector<std::string> choices, const std::string& what) {
  return cmd->add_option("-o,--output", output, what)->check(CLI::IsMember(std::move(choices)));
}

// --listen ADDRESS:PORT (listen_address.h checks it).
inline CLI::Option* AddListenFlag(CLI::App* cmd, std::string& listen, const std::string& what) {
  return cmd->add_option("--listen", listen, what);
}

}  // namespace podlimits::cli
