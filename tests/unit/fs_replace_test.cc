// Replacing a file whole, with and without the fsync: the reader sees the old content or the new,
// the file gets exactly the mode asked whatever the umask, and no temporary sibling is left on
// success or failure.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include "base/fs.h"

namespace podlimits {
namespace {

namespace fs = std::filesystem;

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "podlimits-fs-test.XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~ScratchDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

mode_t ModeOf(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

std::size_t EntriesIn(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

using Replace = std::function<Result<void>(const fs::path&, std::string_view, mode_t)>;

struct Writer {
  const char* name;
  Replace replace;
};

class ReplaceWholeFile : public testing::TestWithParam<Writer> {};

TEST_P(ReplaceWholeFile, NewContentExactModeNothingLeft) {
  ScratchDir dir;
  const fs::path file = dir.path() / "config.json";
  ASSERT_TRUE(GetParam().replace(file, "{\"old\":true}", 0644));
  const mode_t saved = ::umask(0077);  // a umask that would strip the group and other bits
  auto ok = GetParam().replace(file, "{\"new\":true}", 0640);
  ::umask(saved);
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_EQ(ReadSmallFile(file, 1024).value_or(""), "{\"new\":true}");
  EXPECT_EQ(ModeOf(file), 0640u);
  EXPECT_EQ(EntriesIn(dir.path()), 1u);  // no temporary sibling
}

TEST_P(ReplaceWholeFile, FailureNamesThePathAndLeavesNothing) {
  ScratchDir dir;
  const fs::path file = dir.path() / "missing-dir" / "config.json";
  auto ok = GetParam().replace(file, "x", 0644);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().Message().find((dir.path() / "missing-dir").string()), std::string::npos)
      << ok.error();
  EXPECT_EQ(EntriesIn(dir.path()), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Writers, ReplaceWholeFile,
    testing::Values(Writer{"WriteFileAtomically",
                           [](const fs::path& p, std::string_view c, mode_t m) {
                             return WriteFileAtomically(p, c, m);
                           }},
                    Writer{"ReplaceFile", [](const fs::path& p, std::string_view c,
                                             mode_t m) { return ReplaceFile(p, c, m); }}),
    [](const testing::TestParamInfo<Writer>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace podlimits
