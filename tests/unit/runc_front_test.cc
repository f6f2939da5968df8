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
      {"--root", "/r", "exec", "--process", "/p.json", "--detach", "abc"},
      {"exec", "abc", "sh"},
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
                !parsed->command.empty() && !parsed->NeedsWrapper())
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

TEST(RuncFront, DigestIsFnv1a64OfTheBytes) {
  // FNV-1a's published 64-bit test vectors.
  EXPECT_EQ(front::DigestOf("", 0), (front::Digest{0, 0xcbf29ce484222325u}));
  EXPECT_EQ(front::DigestOf("a", 1), (front::Digest{1, 0xaf63dc4c8601ec8cu}));
  EXPECT_EQ(front::DigestOf("foobar", 6), (front::Digest{6, 0x85944171f73967e8u}));
  // The bytes, not the text: a NUL counts, and "runc" and "crun" (same size) differ.
  EXPECT_NE(front::DigestOf("a\0b", 3), front::DigestOf("a\0c", 3));
  EXPECT_NE(front::DigestOf("runtime: /usr/bin/crun\n", 23),
            front::DigestOf("runtime: /usr/bin/runc\n", 23));
}

TEST(RuncFront, RecordRoundTrips) {
  const front::Digest digest{23, 0x85944171f73967e8u};
  char text[front::kMaxRecord];
  std::size_t n = front::FormatRecord(digest, "/usr/bin/crun", text, sizeof text);
  ASSERT_GT(n, 0u);
  EXPECT_EQ(std::string(text, n), "podlimits-runc-front 2 23 9625390261332436968 /usr/bin/crun\n");
  front::Digest read;
  const char* runtime = nullptr;
  ASSERT_TRUE(front::ParseRecord(text, n, &read, &runtime));
  EXPECT_EQ(read, digest);
  EXPECT_EQ(std::string(runtime), "/usr/bin/crun");
  const front::Digest max{UINT64_MAX, UINT64_MAX};
  n = front::FormatRecord(max, "/r", text, sizeof text);
  ASSERT_GT(n, 0u);
  ASSERT_TRUE(front::ParseRecord(text, n, &read, &runtime));
  EXPECT_EQ(read, max);
}

TEST(RuncFront, FormatRefusesWhatItCouldNotReadBack) {
  char text[front::kMaxRecord];
  const front::Digest digest{1, 2};
  EXPECT_EQ(front::FormatRecord(digest, "crun", text, sizeof text), 0u);  // not absolute
  EXPECT_EQ(front::FormatRecord(digest, "/usr/bin/cr\nun", text, sizeof text), 0u);
  char tiny[16];
  EXPECT_EQ(front::FormatRecord(digest, "/usr/bin/crun", tiny, sizeof tiny), 0u);
}

TEST(RuncFront, ParseTrustsOnlyExactlyAWrittenRecord) {
  const std::string good = "podlimits-runc-front 2 1 7 /usr/bin/crun\n";
  const std::vector<std::string> bad = {
      "",
      "podlimits-runc-front 2 1 7 /usr/bin/crun",    // no newline: a torn write
      "podlimits-runc-front 1 1 7 /usr/bin/crun\n",  // another version
      "podlimits-runc-front 2 1 /usr/bin/crun\n",    // a number missing
      "podlimits-runc-front 2 1 x /usr/bin/crun\n",
      "podlimits-runc-front 2 1 7 usr/bin/crun\n",  // not absolute
      "podlimits-runc-front 2 1 7 /usr/bin/crun\nmore\n",
      "podlimits-runc-front 2 1 7  /usr/bin/crun\n",
      "podlimits-runc-front 2 1 18446744073709551616 /usr/bin/crun\n",  // 2^64
      std::string("podlimits-runc-front 2 1 7 /usr/bin/c\0run\n", 42),
  };
  front::Digest digest;
  const char* runtime = nullptr;
  std::string copy = good;
  ASSERT_TRUE(front::ParseRecord(copy.data(), copy.size(), &digest, &runtime));
  EXPECT_EQ(std::string(runtime), "/usr/bin/crun");
  EXPECT_EQ(digest, (front::Digest{1, 7}));
  for (const auto& b : bad) {
    std::string text = b;
    EXPECT_FALSE(front::ParseRecord(text.data(), text.size(), &digest, &runtime)) << b;
  }
}

}  // namespace
}  // namespace podlimits::runcwrap
