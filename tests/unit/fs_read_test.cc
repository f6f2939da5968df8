// Reading a whole file (base/fs.h ReadWholeFile, ReadSmallFile): the content to its end whatever
// size the file reports, and errors that name the operation, the path and the errno, which
// callers that word their own message (or take a missing file as empty) read back.
#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <vector>

#include "base/fs.h"
#include "temp_dir.h"

namespace podlimits {
namespace {

namespace fs = std::filesystem;

struct ReadCase {
  std::string name;
  std::string file;  // relative to the scratch directory, or absolute
  std::string want;  // the content, or the error's message with DIR for the scratch directory
  int want_errno = 0;
};

TEST(ReadWholeFile, ContentOrAnErrorNamingThePath) {
  testing::TempDir dir("podlimits-fs-read");
  std::ofstream(dir / "small") << "pids.max\n";
  std::ofstream(dir / "empty");
  std::ofstream(dir / "large") << std::string(200'000, 'x');  // several reads of 64 KiB
  fs::create_directory(dir / "directory");
  const std::vector<ReadCase> cases = {
      {"a small file", "small", "pids.max\n"},
      {"an empty file", "empty", ""},
      {"a file larger than one read", "large", std::string(200'000, 'x')},
      {"a missing file", "missing", "open \"DIR/missing\": No such file or directory", ENOENT},
      {"a directory", "directory", "read \"DIR/directory\": Is a directory", EISDIR},
  };
  for (const auto& c : cases) {
    auto got = ReadWholeFile(dir / c.file);
    if (c.want_errno == 0) {
      ASSERT_TRUE(got) << c.name << ": " << got.error();
      EXPECT_EQ(*got, c.want) << c.name;
      continue;
    }
    ASSERT_FALSE(got) << c.name;
    std::string want = c.want;
    want.replace(want.find("DIR"), 3, dir.path().string());
    EXPECT_EQ(got.error().Message(), want) << c.name;
    EXPECT_EQ(got.error().errno_value, c.want_errno) << c.name;
  }
}

// procfs reports a size of 0: the content is read to its end all the same.
TEST(ReadWholeFile, ProcFilesOfSizeZero) {
  auto status = ReadWholeFile("/proc/self/status");
  ASSERT_TRUE(status) << status.error();
  EXPECT_TRUE(status->starts_with("Name:")) << *status;
  EXPECT_NE(status->find("\nCapEff:"), std::string::npos) << *status;
}

TEST(ReadSmallFile, RefusesAFileOverItsLimit) {
  testing::TempDir dir("podlimits-fs-read");
  std::ofstream(dir / "f") << "0123456789";
  auto fits = ReadSmallFile(dir / "f", 10);
  ASSERT_TRUE(fits) << fits.error();
  EXPECT_EQ(*fits, "0123456789");
  auto over = ReadSmallFile(dir / "f", 9);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().Message(),
            "read \"" + (dir / "f").string() + "\": larger than the 9 bytes allowed");
}

}  // namespace
}  // namespace podlimits
