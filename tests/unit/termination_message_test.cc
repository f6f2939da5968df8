#include "kubelet/podworker/termination_message.h"

#include <gtest/gtest.h>

#include <string>

#include "temp_dir.h"

namespace podlimits::kubelet {
namespace {

struct Case {
  const char* name;
  const char* policy;     // terminationMessagePolicy
  const char* file_text;  // nullptr: no termination message file
  int exit_code;
  std::string log_tail;
  std::string want;
};

// A tail of `n` numbered lines, "line 1\n" .. "line n\n".
std::string Lines(int n) {
  std::string out;
  for (int i = 1; i <= n; ++i) out += "line " + std::to_string(i) + "\n";
  return out;
}

TEST(TerminationMessage, Table) {
  const Case cases[] = {
      {"FileWins", "FallbackToLogsOnError", "bye", 1, "log\n", "bye"},
      {"FileOnly", "File", nullptr, 1, "log\n", ""},
      {"FallbackOnFailure", "FallbackToLogsOnError", nullptr, 2, "a\nb\n", "a\nb\n"},
      {"NoFallbackOnSuccess", "FallbackToLogsOnError", nullptr, 0, "a\n", ""},
      {"EmptyFileFallsBack", "FallbackToLogsOnError", "", 1, "x", "x"},
      {"LastEightyLines", "FallbackToLogsOnError", nullptr, 1, Lines(90),
       Lines(90).substr(Lines(10).size())},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    testing::TempDir dir("termination-message");
    std::filesystem::path file;
    if (c.file_text) {
      dir.Write("termination-log", c.file_text);
      file = dir / "termination-log";
    }
    api::Container container;
    container.termination_message_policy = c.policy;
    EXPECT_EQ(TerminationMessage(container, file, c.exit_code, c.log_tail), c.want);
  }
}

TEST(TerminationMessage, FileIsCutAt4096Bytes) {
  testing::TempDir dir("termination-message");
  dir.Write("termination-log", std::string(5000, 'm'));
  api::Container container;
  EXPECT_EQ(TerminationMessage(container, dir / "termination-log", 0, ""), std::string(4096, 'm'));
}

// Output passes through whole; the tail keeps the last 2048 bytes.
TEST(TailKeepingSink, KeepsTheLast2048Bytes) {
  struct Collect : cri::OutputSink {
    std::string* seen;
    bool* finished;
    void Feed(std::string_view data) override { seen->append(data); }
    void Finish() override { *finished = true; }
  };
  std::string seen, tail;
  bool finished = false;
  auto inner = std::make_unique<Collect>();
  inner->seen = &seen;
  inner->finished = &finished;
  TailKeepingSink sink(std::move(inner), &tail);
  sink.Feed(std::string(2000, 'a'));
  sink.Feed(std::string(100, 'b'));
  sink.Finish();
  EXPECT_EQ(seen, std::string(2000, 'a') + std::string(100, 'b'));
  EXPECT_EQ(tail, std::string(1948, 'a') + std::string(100, 'b'));
  EXPECT_TRUE(finished);
}

}  // namespace
}  // namespace podlimits::kubelet
