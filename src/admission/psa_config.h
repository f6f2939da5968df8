// The PodSecurity admission plugin's configuration: cluster-wide default levels and exemptions,
// read from an AdmissionConfiguration (apiserver.config.k8s.io/v1) whose `PodSecurity` plugin
// entry embeds a PodSecurityConfiguration (pod-security.admission.config.k8s.io/v1), inline as
// `configuration` or in a file named by `path`.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

#include "admission/psa_level.h"
#include "codec/node.h"

namespace podlimits::admission::psa {

struct PodSecurityExemptions {
  std::vector<std::string> usernames;
  std::vector<std::string> namespaces;
  std::vector<std::string> runtime_classes;
};

struct PodSecurityConfiguration {
  Policy defaults = PrivilegedPolicy();
  PodSecurityExemptions exemptions;
};

// What kube-apiserver uses with no configuration: privileged:latest everywhere, no exemptions.
PodSecurityConfiguration DefaultPodSecurityConfiguration();

// Decodes (strictly) and validates one PodSecurityConfiguration object. Missing default fields
// become privileged / latest, as upstream's v1 defaulting does. `source` names the file in
// messages.
Result<PodSecurityConfiguration> ParsePodSecurityConfiguration(
    codec::Node tree, std::string_view source);

// Reads the PodSecurity configuration out of an AdmissionConfiguration document (YAML or JSON).
// A relative plugin `path` is resolved against `base_dir` (the admission config file's
// directory); no PodSecurity entry, or one with neither configuration nor path, gives the
// defaults.
Result<PodSecurityConfiguration> ParseAdmissionConfiguration(
    std::string_view text, std::string_view source, const std::filesystem::path& base_dir);

// ParseAdmissionConfiguration on the contents of `path`.
Result<PodSecurityConfiguration> LoadAdmissionConfiguration(
    const std::filesystem::path& path);

}  // namespace podlimits::admission::psa
