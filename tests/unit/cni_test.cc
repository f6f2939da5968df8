// The CNI side: network configuration lists, plugin calls against fake plugins (scripts that
// record what they were given), the attachment record and its undoing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "cni/attachment.h"
#include "cni/network_config.h"
#include "cni/plugin_call.h"
#include "codec/json_codec.h"
#include "temp_dir.h"

namespace podlimits::cni {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadText;
using testing::TempDir;

TEST(NetworkConfig, ReadsAList) {
  auto list = ParseNetworkConfig(R"({"cniVersion": "1.0.0", "name": "net1", "plugins": [
      {"type": "bridge", "bridge": "b0"},
      {"type": "portmap", "capabilities": {"portMappings": true}}]})",
                                 "a.conflist");
  ASSERT_TRUE(list) << list.error();
  EXPECT_EQ(list->name, "net1");
  EXPECT_EQ(list->cni_version, "1.0.0");
  ASSERT_EQ(list->plugins.size(), 2u);
  EXPECT_EQ(list->plugins[0].type, "bridge");
  EXPECT_FALSE(list->plugins[0].port_mappings);
  EXPECT_TRUE(list->plugins[1].port_mappings);
  EXPECT_TRUE(list->PortMappings());
}

TEST(NetworkConfig, ASinglePluginFileIsAListOfOne) {
  auto list = ParseNetworkConfig(R"({"cniVersion": "0.4.0", "name": "one", "type": "bridge",
                                     "ipam": {"type": "host-local"}})",
                                 "one.conf");
  ASSERT_TRUE(list) << list.error();
  ASSERT_EQ(list->plugins.size(), 1u);
  EXPECT_FALSE(list->PortMappings());
  const codec::Node* plugins = list->raw.Find("plugins");
  ASSERT_TRUE(plugins && plugins->IsArray());
  EXPECT_EQ(codec::StringOf(plugins->items[0].Find("type")), "bridge");
  EXPECT_EQ(codec::StringOf(list->raw.Find("name")), "one");
}

TEST(NetworkConfig, RefusalsNameTheFileAndTheProblem) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{", "invalid JSON"},
      {"[]", "not one JSON object"},
      {R"({"name": "n", "plugins": [{"type": "bridge"}]})", "missing \"cniVersion\""},
      {R"({"cniVersion": "1.0.0", "plugins": [{"type": "bridge"}]})", "missing \"name\""},
      {R"({"cniVersion": "1.0.0", "name": "-n", "plugins": [{"type": "bridge"}]})",
       "invalid network name \"-n\""},
      {R"({"cniVersion": "1.0.0", "name": "n", "plugins": []})",
       "\"plugins\" must be a non-empty list"},
      {R"({"cniVersion": "1.0.0", "name": "n", "plugins": [{"type": "bridge"}, {}]})",
       "plugins[1]: missing \"type\""},
      {R"({"cniVersion": "1.0.0", "name": "n", "plugins": [{"type": "../../bin/sh"}]})",
       "plugins[0]: invalid plugin type \"../../bin/sh\""},
      {R"({"cniVersion": "1.0.0", "name": "n"})", "the network: missing \"type\""},
  };
  for (const auto& c : cases) {
    auto list = ParseNetworkConfig(c.text, "/etc/cni/net.d/x.conflist");
    ASSERT_FALSE(list) << c.text;
    EXPECT_THAT(list.error().Message(), HasSubstr("\"/etc/cni/net.d/x.conflist\"")) << c.text;
    EXPECT_THAT(list.error().Message(), HasSubstr(c.message)) << c.text;
  }
}

TEST(NetworkConfig, TheFirstFileByNameIsTheNetwork) {
  TempDir dir("cni-conf");
  auto none = LoadNetworkConfig(dir / "missing");
  ASSERT_TRUE(none) << none.error();
  EXPECT_FALSE(*none);
  auto empty = LoadNetworkConfig(dir.path());
  ASSERT_TRUE(empty && !*empty);
  dir.Write("README", "not a network");
  dir.Write("20-b.conflist", R"({"cniVersion": "1.0.0", "name": "b", "plugins": [{"type": "bridge"}]})");
  dir.Write("10-a.conf", R"({"cniVersion": "1.0.0", "name": "a", "type": "bridge"})");
  auto first = LoadNetworkConfig(dir.path());
  ASSERT_TRUE(first && *first);
  EXPECT_EQ((*first)->name, "a");
  EXPECT_EQ((*first)->source, dir / "10-a.conf");
  // A broken first file is an error, never a silent switch to the next network.
  dir.Write("05-broken.json", "{");
  auto broken = LoadNetworkConfig(dir.path());
  ASSERT_FALSE(broken);
  EXPECT_THAT(broken.error().Message(), HasSubstr("05-broken.json"));
}

TEST(NetworkConfig, TheDefaultNetworkReadsBack) {
  DefaultNetwork network;
  network.subnet = "10.99.0.0/16";
  network.ipam_data_dir = "/run/x/cni/networks";
  const std::string text = DefaultNetworkConfigList(network);
  auto list = ParseNetworkConfig(text, "default");
  ASSERT_TRUE(list) << list.error() << text;
  EXPECT_EQ(list->name, "podlimits");
  ASSERT_EQ(list->plugins.size(), 2u);
  EXPECT_EQ(list->plugins[0].type, "bridge");
  EXPECT_EQ(list->plugins[1].type, "portmap");
  EXPECT_TRUE(list->PortMappings());
  const codec::Node& bridge = list->plugins[0].conf;
  EXPECT_TRUE(bridge.Find("isGateway")->AsBool());
  EXPECT_FALSE(bridge.Find("ipMasq")->AsBool());  // nothing leaves the machine by default
  EXPECT_EQ(codec::StringOf(bridge.FindPath({"ipam", "dataDir"})), "/run/x/cni/networks");
  EXPECT_THAT(text, HasSubstr("10.99.0.0/16"));
}

Attachment TwoPluginAttachment() {
  auto list = ParseNetworkConfig(R"({"cniVersion": "1.0.0", "name": "net1", "plugins": [
      {"type": "first", "capabilities": {"portMappings": false}},
      {"type": "second", "capabilities": {"portMappings": true}}]})",
                                 "t");
  Attachment a;
  a.network = list->raw;
  a.container_id = "uid-1";
  a.netns = "/proc/1/ns/net";
  a.args = {{"K8S_POD_NAME", "web"}, {"K8S_POD_NAMESPACE", "default"}};
  a.port_mappings = {{8080, 80, "tcp", ""}};
  return a;
}

TEST(Attachment, PluginConfigInjectsWhatLibcniInjects) {
  Attachment a = TwoPluginAttachment();
  auto first = codec::ParseJsonStream(PluginConfig(a, 0, nullptr));
  ASSERT_TRUE(first);
  const codec::Node& f = (*first)[0];
  EXPECT_EQ(codec::StringOf(f.Find("name")), "net1");
  EXPECT_EQ(codec::StringOf(f.Find("cniVersion")), "1.0.0");
  EXPECT_EQ(f.Find("runtimeConfig"), nullptr);  // it does not declare portMappings
  EXPECT_EQ(f.Find("prevResult"), nullptr);
  codec::Node prev = codec::Node::Object();
  prev.Set("cniVersion", codec::Node::String("1.0.0"));
  auto second = codec::ParseJsonStream(PluginConfig(a, 1, &prev));
  ASSERT_TRUE(second);
  const codec::Node& s = (*second)[0];
  ASSERT_NE(s.FindPath({"runtimeConfig", "portMappings"}), nullptr);
  const codec::Node& mapping = s.FindPath({"runtimeConfig", "portMappings"})->items.at(0);
  EXPECT_EQ(codec::IntOf(mapping.Find("hostPort")), 8080);
  EXPECT_EQ(codec::IntOf(mapping.Find("containerPort")), 80);
  EXPECT_EQ(codec::StringOf(mapping.Find("protocol")), "tcp");
  EXPECT_EQ(mapping.Find("hostIP"), nullptr);
  EXPECT_NE(s.Find("prevResult"), nullptr);
  // No mappings: no runtimeConfig at all.
  a.port_mappings.clear();
  EXPECT_EQ(codec::ParseJsonStream(PluginConfig(a, 1, nullptr))->at(0).Find("runtimeConfig"),
            nullptr);
}

TEST(Attachment, RecordRoundTrips) {
  Attachment a = TwoPluginAttachment();
  a.result = *codec::ParseJsonStream(R"({"cniVersion": "1.0.0", "ips": [{"address": "10.0.0.2/24"}]})")
                  ->begin();
  auto back = DecodeAttachment(EncodeAttachment(a), "network.json");
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->network, a.network);
  EXPECT_EQ(back->container_id, "uid-1");
  EXPECT_EQ(back->ifname, "eth0");
  EXPECT_EQ(back->netns, "/proc/1/ns/net");
  EXPECT_EQ(back->args, a.args);
  EXPECT_EQ(back->port_mappings, a.port_mappings);
  ASSERT_TRUE(back->result);
  EXPECT_EQ(*back->result, *a.result);
  auto bad = DecodeAttachment(R"({"network": {"cniVersion": "1.0.0", "name": "n", "plugins": []},
                                  "containerID": "x"})",
                              "network.json");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().Message(), HasSubstr("non-empty list"));
}

TEST(Attachment, ResultIpsPreferTheSandboxInterface) {
  auto result = codec::ParseJsonStream(R"({"cniVersion": "1.0.0",
      "interfaces": [{"name": "cni0"}, {"name": "veth1"}, {"name": "eth0", "sandbox": "/proc/9/ns/net"}],
      "ips": [{"address": "10.0.0.1/24", "interface": 0},
              {"address": "fd00::5/64", "interface": 2},
              {"address": "10.0.0.5/24", "interface": 2}]})");
  ASSERT_TRUE(result);
  EXPECT_EQ(ResultIps((*result)[0], "eth0"), (std::vector<std::string>{"10.0.0.5", "fd00::5"}));
  auto bare = codec::ParseJsonStream(R"({"ips": [{"address": "10.1.0.7/16"}]})");
  EXPECT_EQ(ResultIps((*bare)[0], "eth0"), (std::vector<std::string>{"10.1.0.7"}));
  auto old = codec::ParseJsonStream(R"({"cniVersion": "0.2.0", "ip4": {"ip": "10.2.0.3/16"}})");
  EXPECT_EQ(ResultIps((*old)[0], "eth0"), (std::vector<std::string>{"10.2.0.3"}));
}

// A fake plugin: appends "COMMAND TYPE NETNS" to calls.log, keeps its stdin and environment,
// and answers as `behaviour` says (a result naming its type, or the spec's error object).
void WritePlugin(const TempDir& dir, const std::string& type, const std::string& behaviour) {
  const std::string script = "#!/bin/sh\n"
                             "log=" + (dir / "calls.log").string() + "\n"
                             "echo \"$CNI_COMMAND " + type + " [$CNI_NETNS]\" >> \"$log\"\n"
                             "cat > " + (dir / ("stdin-" + type + "-")).string() + "$CNI_COMMAND\n"
                             "env > " + (dir / ("env-" + type)).string() + "\n" + behaviour;
  dir.Write("bin/" + type, script);
  chmod((dir / ("bin/" + type)).c_str(), 0755);
}

constexpr const char* kSucceeds =
    "[ \"$CNI_COMMAND\" = ADD ] && echo '{\"cniVersion\": \"1.0.0\", \"ips\": "
    "[{\"address\": \"10.9.0.4/16\"}]}'\nexit 0\n";
constexpr const char* kFailsAdd =
    "[ \"$CNI_COMMAND\" = DEL ] && exit 0\n"
    "echo '{\"cniVersion\": \"1.0.0\", \"code\": 11, \"msg\": \"no luck\", \"details\": \"at all\"}'\n"
    "exit 1\n";

// An ADD of container "uid-1" into /proc/77/ns/net as eth0, plugins in `bin_dirs`.
PluginCall AddCall(std::vector<fs::path> bin_dirs) {
  PluginCall call;
  call.command = "ADD";
  call.container_id = "uid-1";
  call.netns = "/proc/77/ns/net";
  call.ifname = "eth0";
  call.bin_dirs = std::move(bin_dirs);
  return call;
}

TEST(PluginCall, TheProtocolsEnvironmentAndStdin) {
  TempDir dir("cni-call");
  WritePlugin(dir, "first", kSucceeds);
  PluginCall call = AddCall({dir / "nowhere", dir / "bin"});
  call.args = {{"IgnoreUnknown", "1"}, {"K8S_POD_NAME", "web"}};
  auto result = CallPlugin(call, "first", R"({"name":"n"})");
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(ResultIps(*result, "eth0"), (std::vector<std::string>{"10.9.0.4"}));
  const std::string env = ReadText(dir / "env-first");
  EXPECT_THAT(env, HasSubstr("CNI_COMMAND=ADD\n"));
  EXPECT_THAT(env, HasSubstr("CNI_CONTAINERID=uid-1\n"));
  EXPECT_THAT(env, HasSubstr("CNI_NETNS=/proc/77/ns/net\n"));
  EXPECT_THAT(env, HasSubstr("CNI_IFNAME=eth0\n"));
  EXPECT_THAT(env, HasSubstr("CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAME=web\n"));
  EXPECT_THAT(env, HasSubstr("CNI_PATH=" + (dir / "nowhere").string() + ":" +
                             (dir / "bin").string() + "\n"));
  EXPECT_THAT(env, ::testing::Not(HasSubstr("HOME=")));  // nothing of ours leaks in
  EXPECT_EQ(ReadText(dir / "stdin-first-ADD"), R"({"name":"n"})");

  auto missing = CallPlugin(call, "absent", "{}");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().Message(), HasSubstr("failed to find plugin \"absent\" in path ["));
}

TEST(PluginCall, ThePluginsErrorObjectIsTheMessage) {
  TempDir dir("cni-error");
  WritePlugin(dir, "first", kFailsAdd);
  const PluginCall call = AddCall({dir / "bin"});
  auto result = CallPlugin(call, "first", "{}");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().Message(), "plugin type=\"first\" failed (add): no luck: at all");
  dir.Write("bin/second", "#!/bin/sh\necho 'bad things' >&2\nexit 3\n");
  chmod((dir / "bin/second").c_str(), 0755);
  auto plain = CallPlugin(call, "second", "{}");
  ASSERT_FALSE(plain);
  EXPECT_EQ(plain.error().Message(), "plugin type=\"second\" failed (add): bad things");
}

TEST(Attachment, AFailedAddUndoesThePluginsAlreadyCalled) {
  TempDir dir("cni-undo");
  WritePlugin(dir, "first", kSucceeds);
  WritePlugin(dir, "second", kFailsAdd);
  Attachment a = TwoPluginAttachment();
  auto added = AddNetwork(a, {dir / "bin"});
  ASSERT_FALSE(added);
  EXPECT_THAT(added.error().Message(), HasSubstr("no luck"));
  EXPECT_EQ(ReadText(dir / "calls.log"),
            "ADD first [/proc/1/ns/net]\nADD second [/proc/1/ns/net]\n"
            "DEL second [/proc/1/ns/net]\nDEL first [/proc/1/ns/net]\n");
  // The second plugin's DEL got the first one's result as prevResult.
  EXPECT_THAT(ReadText(dir / "stdin-second-DEL"), HasSubstr("\"prevResult\""));
}

TEST(Attachment, DelRunsInReverseWithTheCachedResultAndNoNamespace) {
  TempDir dir("cni-del");
  WritePlugin(dir, "first", kSucceeds);
  WritePlugin(dir, "second", kSucceeds);
  Attachment a = TwoPluginAttachment();
  auto added = AddNetwork(a, {dir / "bin"});
  ASSERT_TRUE(added) << added.error();
  // The second plugin got the first's result, and the port mappings it declared.
  const std::string second_add = ReadText(dir / "stdin-second-ADD");
  EXPECT_THAT(second_add, HasSubstr("\"prevResult\""));
  EXPECT_THAT(second_add, HasSubstr("\"hostPort\":8080"));
  a.result = *added;
  std::filesystem::remove(dir / "calls.log");
  ASSERT_TRUE(DelNetwork(a, {dir / "bin"}, std::string()));
  EXPECT_EQ(ReadText(dir / "calls.log"), "DEL second []\nDEL first []\n");
  EXPECT_THAT(ReadText(dir / "stdin-first-DEL"), HasSubstr("10.9.0.4/16"));
  // A failing DEL does not stop the others; the errors are joined.
  WritePlugin(dir, "second", "exit 1\n");
  std::filesystem::remove(dir / "calls.log");
  auto failed = DelNetwork(a, {dir / "bin"});
  ASSERT_FALSE(failed);
  EXPECT_EQ(ReadText(dir / "calls.log"),
            "DEL second [/proc/1/ns/net]\nDEL first [/proc/1/ns/net]\n");
  EXPECT_THAT(failed.error().Message(), HasSubstr("plugin type=\"second\" failed (delete)"));
}

}  // namespace
}  // namespace podlimits::cni
