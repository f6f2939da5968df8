// Reading `-f` arguments: files, directories (their .yaml/.yml/.json files, sorted) and "-".
#pragma once

#include <expected>
#include <string>
#include <vector>

namespace podlimits::cli {

struct InputFile {
  std::string name;  // as given ("-" for stdin)
  std::string text;
};

std::expected<std::vector<InputFile>, std::string> ReadInputs(const std::vector<std::string>& args);

}  // namespace podlimits::cli
