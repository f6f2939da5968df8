// Flags several commands share, parsed once by CLI11.
#pragma once

#include <CLI/CLI.hpp>

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

}  // namespace podlimits::cli
