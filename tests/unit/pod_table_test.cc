// `kubectl get pods` and `kubectl get events` columns, as printPod and printEvent fill them.
#include <gtest/gtest.h>

#include "codec/json_codec.h"
#include "printers/table.h"

namespace podlimits::apiserver {
namespace {

const auto kNow = std::chrono::sys_seconds(std::chrono::seconds(1'800'000'000));  // 08:00:00

std::vector<std::string> Row(std::string_view resource, const std::string& json) {
  auto nodes = codec::ParseJsonStream(json);
  codec::Node table = printers::BuildTable(resource, {(*nodes)[0]}, "1", kNow);
  std::vector<std::string> cells;
  for (const auto& c : table.Find("rows")->items[0].Find("cells")->items) cells.push_back(c.scalar);
  return cells;
}

TEST(PodTableTest, StatusReadyAndRestartsAsPrintPod) {
  struct Case {
    std::string name, pod, ready, status, restarts;
  };
  const std::string meta =
      R"("metadata":{"name":"p","creationTimestamp":"2027-01-15T07:58:00Z"},)";
  const std::vector<Case> cases = {
      {"running",
       R"({)" + meta + R"("spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running","containerStatuses":[{"name":"a","ready":true,"restartCount":0,"state":{"running":{}}}]}})",
       "1/1", "Running", "0"},
      {"crash loop with last restart",
       R"({)" + meta + R"("spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running","containerStatuses":[{"name":"a","ready":false,"restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"exitCode":1,"finishedAt":"2027-01-15T07:59:30Z"}}}]}})",
       "0/1", "CrashLoopBackOff", "3 (30s ago)"},
      {"completed",
       R"({)" + meta + R"("spec":{"containers":[{"name":"a"}]},"status":{"phase":"Succeeded","containerStatuses":[{"name":"a","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}})",
       "0/1", "Completed", "0"},
      {"exit code without reason",
       R"({)" + meta + R"("spec":{"containers":[{"name":"a"}]},"status":{"phase":"Failed","containerStatuses":[{"name":"a","restartCount":0,"state":{"terminated":{"exitCode":2}}}]}})",
       "0/1", "ExitCode:2", "0"},
      {"init running",
       R"({)" + meta + R"("spec":{"initContainers":[{"name":"i"}],"containers":[{"name":"a"}]},"status":{"phase":"Pending","initContainerStatuses":[{"name":"i","restartCount":0,"state":{"running":{}}}],"containerStatuses":[{"name":"a","restartCount":0,"state":{"waiting":{"reason":"PodInitializing"}}}]}})",
       "0/1", "Init:0/1", "0"},
      {"init failed",
       R"({)" + meta + R"("spec":{"initContainers":[{"name":"i"}],"containers":[{"name":"a"}]},"status":{"phase":"Failed","initContainerStatuses":[{"name":"i","restartCount":0,"state":{"terminated":{"exitCode":1,"reason":"Error"}}}]}})",
       "0/1", "Init:Error", "0"},
      {"sidecar counts",
       R"({)" + meta + R"("spec":{"initContainers":[{"name":"s","restartPolicy":"Always"}],"containers":[{"name":"a"}]},"status":{"phase":"Running","initContainerStatuses":[{"name":"s","ready":true,"started":true,"restartCount":1,"state":{"running":{}}}],"containerStatuses":[{"name":"a","ready":true,"restartCount":0,"state":{"running":{}}}]}})",
       "2/2", "Running", "1"},
      {"terminating",
       R"({"metadata":{"name":"p","creationTimestamp":"2027-01-15T07:58:00Z","deletionTimestamp":"2027-01-15T08:00:30Z"},"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running","containerStatuses":[{"name":"a","ready":true,"restartCount":0,"state":{"running":{}}}]}})",
       "1/1", "Terminating", "0"},
      {"rejected by the node",
       R"({)" + meta + R"("spec":{"containers":[{"name":"a"}]},"status":{"phase":"Failed","reason":"UnsupportedPodField"}})",
       "0/1", "UnsupportedPodField", "0"},
  };
  for (const auto& c : cases) {
    auto cells = Row("pods", c.pod);
    ASSERT_EQ(cells.size(), 9u) << c.name;
    EXPECT_EQ(cells[0], "p") << c.name;
    EXPECT_EQ(cells[1], c.ready) << c.name;
    EXPECT_EQ(cells[2], c.status) << c.name;
    EXPECT_EQ(cells[3], c.restarts) << c.name;
    EXPECT_EQ(cells[4], "2m") << c.name;
  }
}

TEST(PodTableTest, WideColumns) {
  auto cells = Row("pods",
                   R"({"metadata":{"name":"p"},"spec":{"nodeName":"n1","containers":[]},"status":{"podIP":"10.1.0.5"}})");
  EXPECT_EQ(cells[5], "10.1.0.5");
  EXPECT_EQ(cells[6], "n1");
  EXPECT_EQ(cells[7], "<none>");
  EXPECT_EQ(cells[8], "<none>");
}

TEST(PodTableTest, Events) {
  auto cells = Row(
      "events",
      R"({"metadata":{"name":"web.1"},"involvedObject":{"kind":"Pod","name":"web"},"reason":"Started","message":"Started container web","type":"Normal","source":{"component":"kubelet","host":"n1"},"firstTimestamp":"2027-01-15T07:50:00Z","lastTimestamp":"2027-01-15T07:59:00Z","count":3})");
  ASSERT_EQ(cells.size(), 10u);
  EXPECT_EQ(cells[0], "60s");
  EXPECT_EQ(cells[1], "Normal");
  EXPECT_EQ(cells[2], "Started");
  EXPECT_EQ(cells[3], "pod/web");
  EXPECT_EQ(cells[5], "kubelet, n1");
  EXPECT_EQ(cells[6], "Started container web");
  EXPECT_EQ(cells[7], "10m");
  EXPECT_EQ(cells[9], "web.1");
}

}  // namespace
}  // namespace podlimits::apiserver

namespace podlimits::apiserver {
namespace {

// printNode: <none> for a missing address, <unknown> for what the node did not report.
TEST(PodTableTest, NodeWideColumns) {
  auto cells = Row(
      "nodes",
      R"({"metadata":{"name":"n1","creationTimestamp":"2027-01-15T07:58:00Z"},"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.2"}],"nodeInfo":{"kubeletVersion":"v1.32.0","kernelVersion":"6.1.0"},"conditions":[{"type":"Ready","status":"True"}]}})");
  ASSERT_EQ(cells.size(), 10u);
  EXPECT_EQ(cells[0], "n1");
  EXPECT_EQ(cells[1], "Ready");
  EXPECT_EQ(cells[2], "<none>");
  EXPECT_EQ(cells[3], "2m");
  EXPECT_EQ(cells[5], "10.0.0.2");
  EXPECT_EQ(cells[6], "<none>");
  EXPECT_EQ(cells[7], "<unknown>");
  EXPECT_EQ(cells[8], "6.1.0");
  EXPECT_EQ(cells[9], "<unknown>");
}

}  // namespace
}  // namespace podlimits::apiserver
