// What a pod's monitor and the node agent share: status and events files, the liveness lock,
// the stop request and the announcement socket.
#include "nodeagent/monitor_files.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codec/json_codec.h"
#include "temp_dir.h"

namespace podlimits::nodeagent {
namespace {

TEST(MonitorFilesTest, StatusRoundTrip) {
  podlimits::testing::TempDir dir{"podlimits-monitor"};
  EXPECT_FALSE(ReadMonitorStatus(dir.path()));
  MonitorStatus s;
  s.status = codec::Node::Object();
  s.status.Set("phase", codec::Node::String("Running"));
  s.finished = false;
  ASSERT_TRUE(WriteMonitorStatus(dir.path(), s));
  auto read = ReadMonitorStatus(dir.path());
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status.Find("phase")->scalar, "Running");
  EXPECT_FALSE(read->finished);
}

TEST(MonitorFilesTest, EventsAreReadOncePerLine) {
  podlimits::testing::TempDir dir{"podlimits-monitor"};
  std::uint64_t offset = 0;
  EXPECT_TRUE(ReadMonitorEvents(dir.path(), offset).empty());
  MonitorEvent e{{kubelet::EventType::kWarning, "BackOff", "Back-off \"x\""}, "2026-11-26T00:00:00Z", 42};
  ASSERT_TRUE(AppendMonitorEvent(dir.path(), e));
  auto first = ReadMonitorEvents(dir.path(), offset);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].event, e.event);
  EXPECT_EQ(first[0].time, e.time);
  EXPECT_EQ(first[0].nanos, 42);
  EXPECT_TRUE(ReadMonitorEvents(dir.path(), offset).empty());
  // A line still being written (no newline yet) waits for its end.
  dir.Write("events.jsonl", podlimits::testing::ReadText(dir / "events.jsonl") + R"({"type":"Nor)");
  EXPECT_TRUE(ReadMonitorEvents(dir.path(), offset).empty());
}

TEST(MonitorFilesTest, TheLockSaysWhoIsAliveAndStopReachesIt) {
  podlimits::testing::TempDir dir{"podlimits-monitor"};
  EXPECT_FALSE(LiveMonitorPid(dir.path()));
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  if (child == 0) {
    auto lock = LockMonitor(dir.path());
    char ok = lock ? 'y' : 'n';
    (void)!write(ready[1], &ok, 1);
    pause();  // until the stop's SIGTERM
    _exit(0);
  }
  char ok = 0;
  ASSERT_EQ(read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, 'y');
  EXPECT_EQ(LiveMonitorPid(dir.path()), child);
  EXPECT_FALSE(LockMonitor(dir.path()));  // one monitor per pod
  EXPECT_TRUE(StopMonitor(dir.path(), 7));
  EXPECT_EQ(ReadStopGrace(dir.path()), 7);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  EXPECT_FALSE(LiveMonitorPid(dir.path()));  // the lock went with it
  EXPECT_FALSE(StopMonitor(dir.path(), 7));
  close(ready[0]);
  close(ready[1]);
}

TEST(MonitorFilesTest, AnnouncementsReachTheAgent) {
  podlimits::testing::TempDir dir{"podlimits-monitor"};
  NotifyAgent(dir.path(), "nobody-listens");  // best effort: no error, no block
  auto socket = BindNotifySocket(dir.path());
  ASSERT_TRUE(socket) << socket.error().Message();
  NotifyAgent(dir.path(), "uid-1");
  char buf[64];
  const ssize_t n = recv(socket->get(), buf, sizeof buf, 0);
  ASSERT_EQ(n, 5);
  EXPECT_EQ(std::string(buf, 5), "uid-1");
}

// The final status of a pod the node itself stopped, as the kubelet's eviction manager and node
// shutdown manager leave it (an --drain-on-exit left pods Failed with no reason before).
TEST(MonitorFilesTest, NodeKillDecidesTheFinalStatus) {
  const std::string shutdown(kNodeShutdownMessage);
  struct Case {
    const char* name;
    const char* phase;  // what the containers' exits gave
    NodeKill kill;
    const char* expected;  // the status, as JSON
  };
  const Case cases[] = {
      {"no kill: unchanged", "Failed", {}, R"({"phase":"Failed"})"},
      {"shutdown of a running pod", "Failed", {std::nullopt, shutdown},
       R"({"phase":"Failed","reason":"Terminated","message":"Pod was terminated in response to )"
       R"(imminent node shutdown."})"},
      {"shutdown after it succeeded: stays Succeeded", "Succeeded", {std::nullopt, shutdown},
       R"({"phase":"Succeeded","reason":"Terminated","message":"Pod was terminated in response )"
       R"(to imminent node shutdown."})"},
      {"eviction", "Succeeded", {"The node was low on resource: pids. ", std::nullopt},
       R"({"phase":"Failed","reason":"Evicted","message":"The node was low on resource: pids. "})"},
      {"an eviction wins over a shutdown", "Failed", {"evicted", shutdown},
       R"({"phase":"Failed","reason":"Evicted","message":"evicted"})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    codec::Node status = codec::Node::Object();
    status.Set("phase", codec::Node::String(c.phase));
    ApplyNodeKill(status, c.kill);
    EXPECT_EQ(codec::EncodeJson(status, 0), c.expected);
  }
}

TEST(MonitorFilesTest, NodeShutdownFileRoundTrip) {
  podlimits::testing::TempDir dir{"podlimits-monitor"};
  EXPECT_FALSE(ReadNodeShutdownMessage(dir.path()));
  ASSERT_TRUE(WriteNodeShutdownMessage(dir.path()));
  EXPECT_EQ(ReadNodeShutdownMessage(dir.path()),
            "Pod was terminated in response to imminent node shutdown.");
}

}  // namespace
}  // namespace podlimits::nodeagent
