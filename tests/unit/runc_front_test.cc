// podlimits-runc's front (src/runcwrap/front/runc_front.h): it must find the command exactly where
// the full wrapper's ParseRuncCall finds it, pass through exactly the calls the full wrapper
// passes through, and trust only a record that is exactly what the full wrapper writes.
#include "runcwrap/front/runc_front.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runcwrap/runc_args.h"

namespace podlimits::runcwrap {
namespace {

std::vector<char*> Argv(std::vector<std::string>& words) {
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  return argv;
}

TEST(RuncFront, FindsTheCommandWhereTheFullWrapperDoes) {
  const std::vector<std::vector<std::string>> calls = {
      {},
      {"--root", "/run/containerd/runc/k8s.io"},
      {"start", "abc"},
      {"--root", "/r", "--log", "/l", "--log-format", "json", "start", "abc"},
      {"--root=/r", "delete", "--force", "abc"},
      {"-root", "/r", "kill", "abc", "9"},
      {"--systemd-cgroup", "--root", "/r", "create", "--bundle", "/b", "abc"},
      {"--debug", "run", "-d", "abc"},
      {"--cgroup-manager", "systemd", "--log-level", "debug", "state", "abc"},
      {"--criu", "/c", "--rootless", "false", "checkpoint", "abc"},
      {"--unknown-flag", "features"},
      {"--unknown-with-value", "x",
       "state"},  // an unknown option takes no value: "x" is the command
      {"--", "create"},
      {"-", "start"},
      {"--root"},            // a value-taking option at the end: no command
      {"--root", "create"},  // "create" is --root's value
      {"create"},
      {"run", "abc"},
      {"--version"},
      {"-v"},
  };
  for (const auto& call : calls) {
    std::vector<std::string> words = {"podlimits-runc"};
    words.insert(words.end(), call.begin(), call.end());
    auto argv = Argv(words);
    const int argc = static_cast<int>(words.size());
    std::string shown;
    for (const auto& w : call) shown += " " + w;

    auto parsed = ParseRuncCall(call);
    int index = front::CommandIndex(argc, argv.data());
    std::string command = index > 0 ? argv[static_cast<std::size_t>(index)] : "";
    if (parsed) {
      EXPECT_EQ(command, parsed->command) << shown;
      EXPECT_EQ(front::PassesThrough(argc, argv.data()),
                !parsed->command.empty() && !parsed->Creates())
          << shown;
    } else {
      // The full wrapper refuses it (a create whose option lacks a value): the front must not
      // pass it through.
      EXPECT_FALSE(front::PassesThrough(argc, argv.data())) << shown;
    }
  }
}

TEST(RuncFront, RecordPathEscapesSlashAndPercent) {
  char out[front::kMaxPath];
  ASSERT_TRUE(front::RecordPath("/etc/podlimits/runc.yaml", out, sizeof out));
  EXPECT_EQ(std::string(out), "/run/podlimits/runc-front/%2Fetc%2Fpodlimits%2Frunc.yaml");
  ASSERT_TRUE(front::RecordPath("/a%2Fb", out, sizeof out));
  EXPECT_EQ(std::string(out), "/run/podlimits/runc-front/%2Fa%252Fb");  // not "/a/b"'s record
  ASSERT_TRUE(front::RecordPath("/a/b", out, sizeof out));
  EXPECT_EQ(std::string(out), "/run/podlimits/runc-front/%2Fa%2Fb");
  std::string long_path(front::kMaxPath, 'x');
  EXPECT_FALSE(front::RecordPath(long_path.c_str(), out, sizeof out));
  char tiny[8];
  EXPECT_FALSE(front::RecordPath("/a", tiny, sizeof tiny));
}

TEST(RuncFront, RecordRoundTrips) {
  front::Identity id;
  id.dev = 65024;
  id.ino = 10952961;
  id.size = 39;
  id.mtime_sec = 1795772867;
  id.mtime_nsec = 62089594;
  id.ctime_sec = 1795772868;
  id.ctime_nsec = 0;
  char text[front::kMaxRecord];
  std::size_t n = front::FormatRecord(id, "/usr/bin/crun", text, sizeof text);
  ASSERT_GT(n, 0u);
  EXPECT_EQ(std::string(text, n),
            "podlimits-runc-front 1 65024 10952961 39 1795772867 62089594 1795772868 0 "
            "/usr/bin/crun\n");
  front::Identity read;
  const char* runtime = nullptr;
  ASSERT_TRUE(front::ParseRecord(text, n, &read, &runtime));
  EXPECT_EQ(read, id);
  EXPECT_EQ(std::string(runtime), "/usr/bin/crun");
  front::Identity max;
  max.dev = max.ino = max.size = max.mtime_sec = max.mtime_nsec = max.ctime_sec = max.ctime_nsec =
      UINT64_MAX;
  n = front::FormatRecord(max, "/r", text, sizeof text);
  ASSERT_GT(n, 0u);
  ASSERT_TRUE(front::ParseRecord(text, n, &read, &runtime));
  EXPECT_EQ(read, max);
}

TEST(RuncFront, FormatRefusesWhatItCouldNotReadBack) {
  char text[front::kMaxRecord];
  front::Identity id;
  EXPECT_EQ(front::FormatRecord(id, "crun", text, sizeof text), 0u);  // not absolute
  EXPECT_EQ(front::FormatRecord(id, "/usr/bin/cr\nun", text, sizeof text), 0u);
  char tiny[16];
  EXPECT_EQ(front::FormatRecord(id, "/usr/bin/crun", tiny, sizeof tiny), 0u);
}

TEST(RuncFront, ParseTrustsOnlyExactlyAWrittenRecord) {
  const std::string good = "podlimits-runc-front 1 1 2 3 4 5 6 7 /usr/bin/crun\n";
  const std::vector<std::string> bad = {
      "",
      "podlimits-runc-front 1 1 2 3 4 5 6 7 /usr/bin/crun",    // no newline: a torn write
      "podlimits-runc-front 2 1 2 3 4 5 6 7 /usr/bin/crun\n",  // another version
      "podlimits-runc-front 1 1 2 3 4 5 6 /usr/bin/crun\n",    // a number missing
      "podlimits-runc-front 1 1 2 3 4 5 6 x /usr/bin/crun\n",
      "podlimits-runc-front 1 1 2 3 4 5 6 7 usr/bin/crun\n",  // not absolute
      "podlimits-runc-front 1 1 2 3 4 5 6 7 /usr/bin/crun\nmore\n",
      "podlimits-runc-front 1 1 2 3 4 5 6 7  /usr/bin/crun\n",
      "podlimits-runc-front 1 1 2 3 4 5 6 18446744073709551616 /usr/bin/crun\n",  // 2^64
      std::string("podlimits-runc-front 1 1 2 3 4 5 6 7 /usr/bin/c\0run\n", 52),
  };
  front::Identity id;
  const char* runtime = nullptr;
  std::string copy = good;
  ASSERT_TRUE(front::ParseRecord(copy.data(), copy.size(), &id, &runtime));
  EXPECT_EQ(std::string(runtime), "/usr/bin/crun");
  EXPECT_EQ(id.ctime_nsec, 7u);
  for (const auto& b : bad) {
    std::string text = b;
    EXPECT_FALSE(front::ParseRecord(text.data(), text.size(), &id, &runtime)) << b;
  }
}

}  // namespace
}  // namespace podlimits::runcwrap
