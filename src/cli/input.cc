#include "cli/input.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace podlimits::cli {
namespace {

std::expected<std::string, std::string> ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::unexpected(fmt::format("error reading {}: cannot open file", p.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::unexpected(fmt::format("error reading {}: read failed", p.string()));
  return ss.str();
}

}  // namespace

std::expected<std::vector<InputFile>, std::string> ReadInputs(
    const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  std::vector<InputFile> files;
  bool stdin_used = false;
  for (const auto& arg : args) {
    if (arg == "-") {
      if (stdin_used) return std::unexpected("error: stdin (\"-\") given more than once");
      stdin_used = true;
      files.push_back({"-", std::string(std::istreambuf_iterator<char>(std::cin), {})});
      continue;
    }
    std::error_code ec;
    fs::file_status st = fs::status(arg, ec);
    if (ec || !fs::exists(st)) {
      return std::unexpected(fmt::format("error: the path \"{}\" does not exist", arg));
    }
    if (fs::is_directory(st)) {
      std::vector<fs::path> entries;
      for (const auto& e : fs::directory_iterator(arg, ec)) {
        auto ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) {
          entries.push_back(e.path());
        }
      }
      if (ec)
        return std::unexpected(
            fmt::format("error: cannot list directory \"{}\": {}", arg, ec.message()));
      std::sort(entries.begin(), entries.end());
      for (const auto& p : entries) {
        auto text = ReadFile(p);
        if (!text) return std::unexpected("error: " + text.error());
        files.push_back({p.string(), std::move(*text)});
      }
      continue;
    }
    auto text = ReadFile(arg);
    if (!text) return std::unexpected("error: " + text.error());
    files.push_back({arg, std::move(*text)});
  }
  return files;
}

}  // namespace podlimits::cli
