// The kubelet's side of the pod network: hostPorts as port mappings, the default network
// written on the first start, the record of an attachment and its teardown from it alone.
#include "kubelet/network/pod_network.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "api/objects.h"
#include "codec/json_codec.h"
#include "temp_dir.h"

namespace podlimits::kubelet {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadText;
using testing::TempDir;

api::Pod PodFromJson(std::string_view json) {
  auto nodes = codec::ParseJsonStream(json);
  return api::ReadPod(nodes->at(0));
}

TEST(PodNetwork, HostPortsBecomePortMappings) {
  const api::Pod pod = PodFromJson(R"({"metadata": {"name": "web"}, "spec": {
      "initContainers": [{"name": "i", "image": "x", "ports": [{"containerPort": 53, "hostPort": 5353, "protocol": "UDP"}]}],
      "containers": [{"name": "a", "image": "x", "ports": [
        {"containerPort": 80, "hostPort": 8080, "hostIP": "127.0.0.1"},
        {"containerPort": 81}]}]}})");
  const auto mappings = PodPortMappings(pod);
  ASSERT_EQ(mappings.size(), 2u);
  EXPECT_EQ(mappings[0], (cni::PortMapping{5353, 53, "udp", ""}));
  EXPECT_EQ(mappings[1], (cni::PortMapping{8080, 80, "tcp", "127.0.0.1"}));
}

// Fake bridge and portmap plugins that log their calls and hand out one address.
void WriteFakePlugins(const TempDir& dir) {
  for (const std::string type : {"bridge", "portmap"}) {
    dir.Write("bin/" + type,
              "#!/bin/sh\necho \"$CNI_COMMAND " + type + " [$CNI_NETNS] $CNI_CONTAINERID\" >> " +
                  (dir / "calls.log").string() +
                  "\ncat >/dev/null\n[ \"$CNI_COMMAND\" = ADD ] && echo '{\"cniVersion\": "
                  "\"1.0.0\", \"interfaces\": [{\"name\": \"eth0\", \"sandbox\": \"x\"}], "
                  "\"ips\": [{\"address\": \"10.244.0.9/16\", \"interface\": 0}]}'\nexit 0\n");
    chmod((dir / ("bin/" + type)).c_str(), 0755);
  }
}

// podNetwork cni with its configuration in <dir>/net.d and the fake plugins.
PodNetworkSettings FakeSettings(const TempDir& dir) {
  PodNetworkSettings settings;
  settings.mode = PodNetworkMode::kCni;
  settings.conf_dir = (dir / "net.d").string();
  settings.bin_dirs = {(dir / "bin").string()};
  return settings;
}

TEST(PodNetwork, TheFirstStartWritesTheDefaultNetwork) {
  TempDir dir("pod-network");
  WriteFakePlugins(dir);
  const PodNetworkSettings settings = FakeSettings(dir);
  PodNetwork network(settings, "10.77.0.0/16", dir / "state");
  auto list = network.Network();
  ASSERT_TRUE(list) << list.error();
  EXPECT_EQ(list->source, dir / "net.d" / "10-podlimits.conflist");
  EXPECT_THAT(ReadText(list->source), HasSubstr("10.77.0.0/16"));
  EXPECT_THAT(ReadText(list->source), HasSubstr((dir / "state" / "cni" / "networks").string()));
  // An administrator's network is honoured as it is.
  dir.Write("net.d/00-mine.conflist",
            R"({"cniVersion": "1.0.0", "name": "mine", "plugins": [{"type": "bridge"}]})");
  auto mine = network.Network();
  ASSERT_TRUE(mine) << mine.error();
  EXPECT_EQ(mine->name, "mine");
  // A plugin the node lacks is said before any pod relies on it.
  dir.Write("net.d/0-missing.conflist",
            R"({"cniVersion": "1.0.0", "name": "m", "plugins": [{"type": "macvlan"}]})");
  auto missing = network.Network();
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().Message(), HasSubstr("failed to find plugin \"macvlan\""));
  EXPECT_THAT(missing.error().Message(), HasSubstr("0-missing.conflist"));
}

TEST(PodNetwork, SetUpRecordsAndTearDownUndoesFromTheRecordAlone) {
  TempDir dir("pod-network");
  WriteFakePlugins(dir);
  const PodNetworkSettings settings = FakeSettings(dir);
  PodNetwork network(settings, "10.244.0.0/16", dir / "state");
  const api::Pod pod = PodFromJson(R"({"metadata": {"name": "web", "namespace": "default"},
      "spec": {"containers": [{"name": "a", "image": "x",
                               "ports": [{"containerPort": 80, "hostPort": 8080}]}]}})");
  fs::create_directories(dir / "pod");
  auto ips = network.SetUp(pod, "uid-9", 4242, dir / "pod");
  ASSERT_TRUE(ips) << ips.error();
  EXPECT_EQ(*ips, (std::vector<std::string>{"10.244.0.9"}));
  const std::string record = ReadText(dir / "pod" / "network.json");
  EXPECT_THAT(record, HasSubstr("\"hostPort\": 8080"));
  EXPECT_THAT(record, HasSubstr("10.244.0.9/16"));
  EXPECT_THAT(record, HasSubstr("K8S_POD_NAME"));
  // A later process, with the namespace gone: DEL in reverse, without a namespace.
  fs::remove(dir / "calls.log");
  ASSERT_TRUE(TearDownPodNetwork(dir / "pod", network.bin_dirs(), false));
  EXPECT_EQ(ReadText(dir / "calls.log"), "DEL portmap [] uid-9\nDEL bridge [] uid-9\n");
  EXPECT_FALSE(fs::exists(dir / "pod" / "network.json"));
  // Nothing recorded: nothing to do.
  ASSERT_TRUE(TearDownPodNetwork(dir / "pod", network.bin_dirs(), true));
}

TEST(PodNetwork, HostPortsNeedPortmap) {
  TempDir dir("pod-network");
  WriteFakePlugins(dir);
  dir.Write("net.d/10-plain.conflist",
            R"({"cniVersion": "1.0.0", "name": "plain", "plugins": [{"type": "bridge"}]})");
  const PodNetworkSettings settings = FakeSettings(dir);
  PodNetwork network(settings, "10.244.0.0/16", dir / "state");
  const api::Pod pod = PodFromJson(R"({"metadata": {"name": "web"}, "spec": {"containers": [
      {"name": "a", "image": "x", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}})");
  fs::create_directories(dir / "pod");
  auto ips = network.SetUp(pod, "uid-9", 4242, dir / "pod");
  ASSERT_FALSE(ips);
  EXPECT_THAT(ips.error().Message(), HasSubstr("no plugin of network \"plain\""));
  EXPECT_FALSE(fs::exists(dir / "calls.log"));  // refused before any plugin ran
}

}  // namespace
}  // namespace podlimits::kubelet

namespace podlimits::kubelet {
namespace {

TEST(PodNetwork, AFailedAddWhoseUndoFailsKeepsTheRecord) {
  testing::TempDir dir("pod-network");
  WriteFakePlugins(dir);
  // portmap fails both its ADD and its DEL.
  dir.Write("bin/portmap", "#!/bin/sh\ncat >/dev/null\necho '{\"code\": 7, \"msg\": \"broken\"}'\nexit 1\n");
  chmod((dir / "bin/portmap").c_str(), 0755);
  PodNetwork network(FakeSettings(dir), "10.244.0.0/16", dir / "state");
  const api::Pod pod = PodFromJson(R"({"metadata": {"name": "web"}, "spec": {"containers": [
      {"name": "a", "image": "x", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}})");
  fs::create_directories(dir / "pod");
  auto ips = network.SetUp(pod, "uid-9", 4242, dir / "pod");
  ASSERT_FALSE(ips);
  EXPECT_THAT(ips.error().Message(), HasSubstr("plugin type=\"portmap\" failed (add): broken"));
  EXPECT_TRUE(fs::exists(dir / "pod" / "network.json")) << "kept for a later DEL";
  // Once DEL works, the teardown gives everything back and the record goes.
  WriteFakePlugins(dir);
  ASSERT_TRUE(TearDownPodNetwork(dir / "pod", network.bin_dirs(), true));
  EXPECT_FALSE(fs::exists(dir / "pod" / "network.json"));
}

}  // namespace
}  // namespace podlimits::kubelet
