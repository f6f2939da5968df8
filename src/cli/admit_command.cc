#include "cli/admit_command.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "admission/chain.h"
#include "admission/pod_security.h"
#include "api/decode.h"
#include "cli/exit_codes.h"
#include "cli/flags.h"
#include "cli/input.h"
#include "cli/name_seed.h"
#include "cli/report.h"
#include "validation/feature_gates.h"

namespace podlimits::cli {
namespace {

struct AdmitFlags {
  std::vector<std::string> files;
  api::FieldValidation validate_mode = api::FieldValidation::kStrict;
  std::string feature_gates;
  // admit only:
  std::string output = "yaml";
  std::string admission_config;
  std::string username = "kubernetes-admin";
};

void AddInputFlags(CLI::App* cmd, AdmitFlags& flags) {
  cmd->add_option("-f,--filename", flags.files, "Files, directories or - (stdin) to read")
      ->required();
  AddValidateFlag(cmd, flags.validate_mode);
  AddFeatureGatesFlag(cmd, flags.feature_gates);
}

int RunChainOnInputs(const AdmitFlags& flags, admission::ChainOptions options,
                     OutputFormat format) {
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

int ValidateCommand(const AdmitFlags& flags) {
  admission::ChainOptions options;
  options.run_admission_plugins = false;
  return RunChainOnInputs(flags, options, OutputFormat::kName);
}

int AdmitCommand(const AdmitFlags& flags) {
  admission::ChainOptions options;
  options.username = flags.username;
  std::optional<admission::psa::PodSecurity> pod_security;
  if (!flags.admission_config.empty()) {
    auto loaded = admission::psa::LoadAdmissionConfiguration(flags.admission_config);
    if (!loaded) {
      std::fprintf(stderr, "error: %s\n", loaded.error().Message().c_str());
      return kExitUsage;
    }
    pod_security.emplace(std::move(*loaded));
    options.pod_security = &*pod_security;
  }
  return RunChainOnInputs(flags, options,
                          flags.output == "json" ? OutputFormat::kJson : OutputFormat::kYaml);
}

}  // namespace

void AddAdmitCommands(CLI::App& app, int& exit_code) {
  auto validate_flags = std::make_shared<AdmitFlags>();
  CLI::App* validate = app.add_subcommand("validate", "API validation only");
  AddInputFlags(validate, *validate_flags);
  validate->callback([validate_flags, &exit_code] { exit_code = ValidateCommand(*validate_flags); });

  auto admit_flags = std::make_shared<AdmitFlags>();
  CLI::App* admit =
      app.add_subcommand("admit", "The apiserver admission chain; admitted objects to stdout");
  AddInputFlags(admit, *admit_flags);
  admit->add_option("--admission-config", admit_flags->admission_config,
                    "AdmissionConfiguration file (PodSecurity defaults and exemptions)");
  AddOutputFlag(admit, admit_flags->output, {"yaml", "json"}, "yaml or json");
  admit->add_option("--as", admit_flags->username,
                    "The requesting user (for Pod Security exemptions)");
  admit->callback([admit_flags, &exit_code] { exit_code = AdmitCommand(*admit_flags); });
}

}  // namespace podlimits::cli
