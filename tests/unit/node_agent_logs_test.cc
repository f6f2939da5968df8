// Which log file `kubectl logs` reads: run k of a container writes k.log (k its restartCount
// when it started), so the current or backing-off run is restartCount.log and --previous the one
// before; a container that never ran, has no status or no previous run is the kubelet's error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec/json_codec.h"
#include "nodeagent/node_agent.h"
#include "temp_dir.h"

namespace podlimits::nodeagent {
namespace {

codec::Node Pod(const std::string& status) {
  auto nodes = codec::ParseJsonStream(
      R"({"metadata":{"name":"web","namespace":"default","uid":"u1"},"status":{"containerStatuses":[)" +
      status + "]}}");
  return (*nodes)[0];
}

TEST(NodeAgentLogsTest, CurrentAndPreviousRun) {
  podlimits::testing::TempDir dir{"podlimits-agent-logs"};
  auto store = storage::ObjectStore::Open(dir / "state.db");
  ASSERT_TRUE(store);
  NodeAgentOptions options;
  options.pod_logs_dir = "/logs";
  NodeAgent agent(**store, options);
  struct Case {
    std::string name, status;
    bool previous;
    std::string want;  // the file, or the error
  };
  const std::string running =
      R"({"name":"c","restartCount":2,"state":{"running":{}},"lastState":{"terminated":{"exitCode":1}}})";
  const std::string backing_off =
      R"({"name":"c","restartCount":2,"state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"exitCode":1}}})";
  const std::string creating = R"({"name":"c","restartCount":0,"state":{"waiting":{"reason":"ContainerCreating"}}})";
  const std::string first = R"({"name":"c","restartCount":0,"state":{"running":{}}})";
  const std::string only_sidecar = R"({"name":"sidecar","restartCount":0,"state":{"running":{}}})";
  const std::vector<Case> cases = {
      {"running", running, false, "/logs/default_web_u1/c/2.log"},
      {"running, previous", running, true, "/logs/default_web_u1/c/1.log"},
      {"backing off: its last run", backing_off, false, "/logs/default_web_u1/c/2.log"},
      {"backing off, previous", backing_off, true, "/logs/default_web_u1/c/1.log"},
      {"never ran", creating, false,
       "container \"c\" in pod \"web\" is waiting to start: ContainerCreating"},
      {"no status (a pod the node refused)", only_sidecar, false,
       "container \"c\" in pod \"web\" is not available"},
      {"no previous run", first, true,
       "previous terminated container \"c\" in pod \"web\" not found"},
  };
  for (const auto& c : cases) {
    auto file = agent.ContainerLogFile(Pod(c.status), "c", c.previous);
    EXPECT_EQ(file ? file->string() : file.error().Message(), c.want) << c.name;
  }
}

}  // namespace
}  // namespace podlimits::nodeagent
