// Parsing of the pids controller's files and of "max"-or-number limit files.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cgroups/memory.h"
#include "cgroups/pids.h"

namespace podlimits::cgroups {
namespace {

namespace fs = std::filesystem;

struct MaxCase {
  std::string name;
  std::string text;
  bool ok;
  MaxValue value;
};

TEST(CgroupPids, ParseMaxValue) {
  const std::vector<MaxCase> cases = {
      {"max", "max\n", true, std::nullopt},
      {"number", "1024\n", true, 1024},
      {"zero is a real limit", "0\n", true, 0},
      {"padded", "  7 \n", true, 7},
      {"largest pids.max", "4194304\n", true, 4194304},
      {"negative", "-1\n", false, std::nullopt},
      {"empty", "", false, std::nullopt},
      {"word", "unlimited\n", false, std::nullopt},
      {"trailing junk", "5x\n", false, std::nullopt},
      {"two values", "max max\n", false, std::nullopt},
      {"Max", "Max\n", false, std::nullopt},
  };
  for (const MaxCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto v = ParseMaxValue(c.text, "/cg/pids.max");
    ASSERT_EQ(v.has_value(), c.ok);
    if (c.ok) {
      EXPECT_EQ(*v, c.value);
    }
  }
  EXPECT_EQ(ParseMaxValue("5x\n", "/cg/pids.max").error().Message(),
            "parse \"/cg/pids.max\": expected \"max\" or a number, got \"5x\"");
  EXPECT_EQ(FormatMaxValue(std::nullopt), "max");
  EXPECT_EQ(FormatMaxValue(42), "42");
}

TEST(CgroupPids, ParseCounter) {
  EXPECT_EQ(ParseCounter("3\n", "f").value(), 3);
  EXPECT_EQ(ParseCounter("0", "f").value(), 0);
  EXPECT_FALSE(ParseCounter("max\n", "f"));
  EXPECT_FALSE(ParseCounter("", "f"));
  EXPECT_EQ(ParseCounter("x", "/cg/pids.current").error().Message(),
            "parse \"/cg/pids.current\": expected a number, got \"x\"");
}

struct EventsCase {
  std::string name;
  std::string text;
  bool ok;
  std::int64_t max;
};

TEST(CgroupPids, ParsePidsEvents) {
  const std::vector<EventsCase> cases = {
      {"v1 and v2", "max 0\n", true, 0},
      {"counted", "max 17\n", true, 17},
      {"extra keys ignored", "max 2\nmax.imposed 3\n", true, 2},
      {"key order", "max.imposed 3\nmax 2\n", true, 2},
      {"legacy without space", "max5\n", true, 5},
      {"no newline", "max 4", true, 4},
      {"empty", "", false, 0},
      {"no value", "max\n", false, 0},
      {"twice", "max 1\nmax 2\n", false, 0},
      {"negative", "max -1\n", false, 0},
      {"wrong case", "MAX 1\n", false, 0},
  };
  for (const EventsCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto events = ParsePidsEvents(c.text, "/cg/pids.events");
    ASSERT_EQ(events.has_value(), c.ok) << (events ? "" : events.error().Message());
    if (c.ok) {
      EXPECT_EQ(events->max, c.max);
    }
  }
  EXPECT_EQ(ParsePidsEvents("", "/cg/pids.events").error().Message(),
            "parse \"/cg/pids.events\": no \"max\" counter in \"\"");
}

TEST(CgroupPids, ReadThroughATree) {
  std::string pattern = (fs::temp_directory_path() / "podlimits-cgpids-XXXXXX").string();
  const fs::path tmp = ::mkdtemp(pattern.data());
  {
    auto tree = CgroupTree::OnPlainDirectory(
        tmp, {{"pids.current", "3\n"}, {"pids.max", "10\n"}, {"pids.events", "max 2\n"}});
    ASSERT_TRUE(tree.Create("pod"));
    EXPECT_EQ(ReadPidsCurrent(tree, "pod").value(), 3);
    EXPECT_EQ(ReadPidsMax(tree, "pod").value(), MaxValue(10));
    EXPECT_EQ(ReadPidsEvents(tree, "pod").value().max, 2);
    ASSERT_TRUE(tree.Write("pod", "pids.max", "max\n"));
    EXPECT_EQ(ReadPidsMax(tree, "pod").value(), std::nullopt);
    ASSERT_TRUE(tree.Write("pod", "pids.max", "oops"));
    EXPECT_EQ(ReadPidsMax(tree, "pod").error().Message(),
              "parse \"" + (tmp / "pod/pids.max").string() +
                  "\": expected \"max\" or a number, got \"oops\"");
    EXPECT_EQ(ReadPidsCurrent(tree, "nope").error().Message(),
              "open \"" + (tmp / "nope/pids.current").string() + "\": No such file or directory");
    EXPECT_TRUE(tree.Teardown());
  }
  EXPECT_TRUE(fs::is_empty(tmp));
  fs::remove_all(tmp);
}

// memory.events as cgroup v2 prints it: the oom_kill counter, 0 when the key is missing.
TEST(CgroupMemory, OomKillsFromMemoryEvents) {
  const std::string events = "low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\noom_group_kill 0\n";
  EXPECT_EQ(ParseOomKills(events, "memory.events"), 2);
  EXPECT_EQ(ParseOomKills("low 0\noom 0\n", "memory.events"), 0);
  auto bad = ParseOomKills("oom_kill x\n", "/c/memory.events");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().Message(), "parse \"/c/memory.events\": oom_kill is not a number: \"x\"");
}

}  // namespace
}  // namespace podlimits::cgroups
