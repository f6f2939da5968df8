#include "cli/input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/error.h"

namespace podlimits::cli {
namespace {

// Everything left in `f`, appended to `out`. Reading straight into the string (reserved by the
// caller when the size is known) copies a large input once; a stringstream copied it three times.
bool AppendAll(std::FILE* f, std::string& out) {
  char buf[64 * 1024];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  return !std::ferror(f);
}

Result<std::string> ReadFile(const std::filesystem::path& p) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(p.c_str(), "rb"), &std::fclose);
  if (!f) return Failure(fmt::format("error reading {}: cannot open file", p.string()));
  std::string text;
  std::error_code ec;
  std::uintmax_t size = std::filesystem::file_size(p, ec);  // fails for pipes: no reservation
  if (!ec) text.reserve(size);
  if (!AppendAll(f.get(), text)) {
    return Failure(fmt::format("error reading {}: read failed", p.string()));
  }
  return text;
}

}  // namespace

Result<std::vector<InputFile>> ReadInputs(const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  std::vector<InputFile> files;
  bool stdin_used = false;
  for (const auto& arg : args) {
    if (arg == "-") {
      if (stdin_used) return Failure("error: stdin (\"-\") given more than once");
      stdin_used = true;
      std::string text;
      AppendAll(stdin, text);  // as ever, a read error on stdin just ends the input
      files.push_back({"-", std::move(text)});
      continue;
    }
    std::error_code ec;
    fs::file_status st = fs::status(arg, ec);
    if (ec || !fs::exists(st)) {
      return Failure(fmt::format("error: the path \"{}\" does not exist", arg));
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
        return Failure(fmt::format("error: cannot list directory \"{}\": {}", arg, ec.message()));
      std::sort(entries.begin(), entries.end());
      for (const auto& p : entries) {
        auto text = ReadFile(p);
        if (!text) return Failure("error: " + text.error().Message());
        files.push_back({p.string(), std::move(*text)});
      }
      continue;
    }
    auto text = ReadFile(arg);
    if (!text) return Failure("error: " + text.error().Message());
    files.push_back({arg, std::move(*text)});
  }
  return files;
}

}  // namespace podlimits::cli
