// Container logs in the CRI format and the kubelet's layout: what the writer makes of a
// container's output, rotation, and what `kubectl logs` reads back.
#include "cri/container_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <vector>

#include "temp_dir.h"

namespace podlimits::cri {
namespace {

using ::testing::HasSubstr;

LogReadOptions Tail(std::int64_t n, bool timestamps = false) {
  LogReadOptions o;
  o.tail_lines = n;
  o.timestamps = timestamps;
  return o;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(ContainerLogTest, KubeletLayout) {
  EXPECT_EQ(PodLogDirectory("/var/log/pods", "default", "web", "u-1"),
            "/var/log/pods/default_web_u-1");
  EXPECT_EQ(ContainerLogFile("/var/log/pods/default_web_u-1", "app", 2),
            "/var/log/pods/default_web_u-1/app/2.log");
}

TEST(ContainerLogTest, WritesCriLinesFromBothStreamsOfOneRun) {
  podlimits::testing::TempDir dir{"podlimits-log"};
  CriLogOutput output(dir.path(), {});
  auto out = output.Open("app", 0, OutputStream::kStdout);
  auto err = output.Open("app", 0, OutputStream::kStderr);
  out->Feed("hello\nwor");
  err->Feed("oops\n");
  out->Feed("ld\n");
  out->Feed("no newline");
  out->Finish();
  err->Finish();
  auto lines = Lines(podlimits::testing::ReadText(dir / "app/0.log"));
  ASSERT_EQ(lines.size(), 4u);
  const std::regex entry(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z (stdout|stderr) F .*$)");
  for (const auto& l : lines) EXPECT_TRUE(std::regex_match(l, entry)) << l;
  EXPECT_THAT(lines[0], HasSubstr(" stdout F hello"));
  EXPECT_THAT(lines[1], HasSubstr(" stderr F oops"));
  EXPECT_THAT(lines[2], HasSubstr(" stdout F world"));
  EXPECT_THAT(lines[3], HasSubstr(" stdout F no newline"));
  // A restart writes the next file.
  auto again = output.Open("app", 1, OutputStream::kStdout);
  again->Feed("second run\n");
  EXPECT_THAT(podlimits::testing::ReadText(dir / "app/1.log"), HasSubstr("second run"));
}

TEST(ContainerLogTest, LongLinesArePartialEntries) {
  podlimits::testing::TempDir dir{"podlimits-log"};
  CriLogOutput output(dir.path(), {});
  auto out = output.Open("app", 0, OutputStream::kStdout);
  out->Feed(std::string(16 * 1024 + 10, 'x') + "\n");
  out->Finish();
  auto lines = Lines(podlimits::testing::ReadText(dir / "app/0.log"));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr(" stdout P xxxx"));
  EXPECT_THAT(lines[1], HasSubstr(" stdout F xxxxxxxxxx"));
  // Read back as one line.
  EXPECT_EQ(ReadContainerLog(dir / "app/0.log", {}), std::string(16 * 1024 + 10, 'x') + "\n");
}

TEST(ContainerLogTest, RotatesBySizeAndKeepsMaxFiles) {
  podlimits::testing::TempDir dir{"podlimits-log"};
  ContainerLogPolicy policy;
  policy.max_size = 200;
  policy.max_files = 2;
  CriLogOutput output(dir.path(), policy);
  auto out = output.Open("app", 0, OutputStream::kStdout);
  for (int i = 0; i < 20; ++i) out->Feed("line " + std::to_string(i) + "\n");
  out->Finish();
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "app")) {
    (void)e;
    ++files;
  }
  EXPECT_LE(files, 2);
  // The newest lines are there, the oldest rotated away.
  const std::string text = ReadContainerLog(dir / "app/0.log", {});
  EXPECT_THAT(text, HasSubstr("line 19\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("line 0\n")));
}

TEST(ContainerLogTest, ParsesEntries) {
  struct Case {
    std::string name, line;
    bool ok;
    std::string stream, text;
    bool partial;
  };
  const std::vector<Case> cases = {
      {"full", "2026-11-26T01:02:03.5Z stdout F hi there", true, "stdout", "hi there", false},
      {"partial", "2026-11-26T01:02:03Z stderr P abc", true, "stderr", "abc", true},
      {"empty line", "2026-11-26T01:02:03Z stdout F ", true, "stdout", "", false},
      {"no tag (older runtimes)", "2026-11-26T01:02:03Z stdout text", true, "stdout", "text",
       false},
      {"garbage", "nonsense", false, "", "", false},
  };
  for (const auto& c : cases) {
    auto e = ParseLogEntry(c.line);
    ASSERT_EQ(e.has_value(), c.ok) << c.name;
    if (!c.ok) continue;
    EXPECT_EQ(e->stream, c.stream) << c.name;
    EXPECT_EQ(e->text, c.text) << c.name;
    EXPECT_EQ(e->partial, c.partial) << c.name;
  }
}

TEST(ContainerLogTest, ReadsWithTailTimestampsSinceAndLimit) {
  podlimits::testing::TempDir dir{"podlimits-log"};
  dir.Write("app/0.log",
            "2026-11-26T01:00:00Z stdout F one\n"
            "2026-11-26T01:00:01.25Z stderr F two\n"
            "2026-11-26T01:00:02Z stdout F three\n");
  const auto file = dir / "app/0.log";
  EXPECT_EQ(ReadContainerLog(file, {}), "one\ntwo\nthree\n");
  EXPECT_EQ(ReadContainerLog(file, Tail(2)), "two\nthree\n");
  EXPECT_EQ(ReadContainerLog(file, Tail(0)), "");
  EXPECT_EQ(ReadContainerLog(file, Tail(1, true)), "2026-11-26T01:00:02Z three\n");
  LogReadOptions limit;
  limit.limit_bytes = 6;
  EXPECT_EQ(ReadContainerLog(file, limit), "one\ntw");
  std::tm tm{};
  tm.tm_year = 126;
  tm.tm_mon = 10;
  tm.tm_mday = 26;
  tm.tm_hour = 1;
  tm.tm_sec = 1;
  LogReadOptions since;
  since.since = std::chrono::system_clock::from_time_t(timegm(&tm));
  EXPECT_EQ(ReadContainerLog(file, since), "two\nthree\n");
  EXPECT_EQ(ReadContainerLog(dir / "missing/0.log", {}), "");
}

}  // namespace
}  // namespace podlimits::cri
