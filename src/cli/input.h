// Reading `-f` arguments: files, directories (their .yaml/.yml/.json files, sorted) and "-".
#pragma once

#include <expected>
#include <string>
#include <vector>

#include "base/error.h"

namespace podlimits::cli {

struct InputFile {
  std::string name;  // as given ("-" for stdin)
  std::string text;
};

Result<std::vector<InputFile>> ReadInputs(const std::vector<std::string>& args);

}  // namespace podlimits::cli
