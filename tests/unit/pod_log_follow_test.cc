// Following a CRI log file: entries completed after the offset, partial lines held back until
// their newline, a rotation read from the new file's start, and the last lines read after the
// run is over.
#include "podstreams/pod_log_follow.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "temp_dir.h"

namespace podlimits::apiserver {
namespace {

void Append(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::app | std::ios::binary) << text;
}

TEST(PodLogFollow, EntriesAfterTheOffsetUntilTheRunIsOver) {
  testing::TempDir dir("log-follow");
  const auto file = dir / "0.log";
  Append(file, "2026-01-01T00:00:00.000000000Z stdout F before\n");
  const auto offset = std::filesystem::file_size(file);
  std::vector<std::string> got;
  std::atomic<bool> over{false};
  std::thread follower([&] {
    FollowContainerLog(
        file, offset,
        [&](const std::vector<cri::LogEntry>& entries) {
          for (const auto& e : entries) got.push_back(e.stream + ":" + e.text);
          return true;
        },
        [&] { return over.load(); }, [] { return false; });
  });
  Append(file, "2026-01-01T00:00:01.000000000Z stdout F one\n2026-01-01T00:00:01.1Z stderr F tw");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Append(file, "o\n");
  // Written just before the run is seen over: still read.
  Append(file, "2026-01-01T00:00:02.000000000Z stdout F last\n");
  over = true;
  follower.join();
  EXPECT_EQ(got, (std::vector<std::string>{"stdout:one", "stderr:two", "stdout:last"}));
}

TEST(PodLogFollow, ARotatedFileIsReadFromItsStartAndAStopEndsIt) {
  testing::TempDir dir("log-follow");
  const auto file = dir / "0.log";
  Append(file, "2026-01-01T00:00:00.000000000Z stdout F a long line before the rotation\n");
  std::vector<std::string> got;
  std::atomic<bool> stop{false};
  std::thread follower([&] {
    FollowContainerLog(
        file, std::filesystem::file_size(file),
        [&](const std::vector<cri::LogEntry>& entries) {
          for (const auto& e : entries) got.push_back(e.text);
          stop = true;
          return true;
        },
        [] { return false; }, [&] { return stop.load(); });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::ofstream(file, std::ios::trunc | std::ios::binary) << "2026-01-01T00:00:03Z stdout F new\n";
  follower.join();
  EXPECT_EQ(got, (std::vector<std::string>{"new"}));
}

}  // namespace
}  // namespace podlimits::apiserver
