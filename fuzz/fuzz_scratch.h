// A scratch directory for fuzzers that write files: made once per process under $TMPDIR with a
// "canary" file in it (a target checks nothing touched it), removed when the fuzzer exits.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace podlimits::fuzz {

class ScratchDir {
 public:
  explicit ScratchDir(std::string_view prefix) {
    std::string t =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    if (mkdtemp(t.data()) == nullptr) std::abort();
    path_ = t;
    std::ofstream(path_ / "canary") << "canary";
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

  // The canary is still there, unchanged.
  bool CanaryIntact() const {
    std::ifstream in(path_ / "canary");
    std::string text;
    in >> text;
    return text == "canary";
  }

 private:
  std::filesystem::path path_;
};

}  // namespace podlimits::fuzz
